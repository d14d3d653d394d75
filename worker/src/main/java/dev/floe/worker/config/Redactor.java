package dev.floe.worker.config;

import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks credentials in text that is about to be logged or shown: passwords in URIs
 * ({@code scheme://user:pass@host}), {@code password=}/{@code secret=}/{@code token=}/{@code key=}
 * style parameters (query strings, JDBC URLs, JAAS {@code password="..."}), bearer tokens, and
 * every secret value this process resolved ({@link KnownSecrets}). References such as
 * {@code ${env:NAME}} are not secrets and stay readable.
 */
public final class Redactor {
  public static final String MASK = "****";
  private static final String REFERENCE = "\\$\\{(?:env|file):[^}]*}";
  /** The password of a URI's userinfo; the user stays, it helps to tell which account failed. */
  private static final Pattern USERINFO = Pattern.compile("(?<=://)([^/\\s:@?#\"']*):(" + REFERENCE + "|[^/\\s@?#\"']+)@");
  /** A secret-named parameter: JDBC ({@code ;password=x}), query ({@code &token=x}), JAAS ({@code password="x"}), Kafka's config dump. */
  private static final Pattern PARAMETER = Pattern.compile("(?i)(?<![\\w.-])([\\w.-]*(?:password|passwd|pwd|secret|token|credential|signature"
      + "|(?:api|access|private|session|account|sas|auth)[_.-]?key)[\\w.-]*|key)(\\s*=\\s*)(" + REFERENCE + "|\"[^\"]*\"|'[^']*'|[^\\s&;,\"'()\\[\\]{}]+)");
  /** A token after "Bearer"/"Basic"; it must hold a digit, so prose ("basic authentication") stays. */
  private static final Pattern BEARER = Pattern.compile("(?i)\\b(bearer|basic)(\\s+)(?=[A-Za-z._~+/-]*[0-9])([A-Za-z0-9._~+/-]{8,}=*)");
  private static final Pattern IS_REFERENCE = Pattern.compile(REFERENCE);

  private Redactor() {}

  /** The text with every credential masked; null stays null. */
  public static String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String out = text;
    for (String secret : KnownSecrets.values()) {
      out = out.replace(secret, MASK);
    }
    out = replace(USERINFO, out, m -> m.group(1) + ":" + mask(m.group(2)) + "@");
    out = replace(PARAMETER, out, m -> m.group(1) + m.group(2) + mask(m.group(3)));
    return replace(BEARER, out, m -> m.group(1) + m.group(2) + MASK);
  }

  /**
   * Whether the text itself holds a credential (a URI password, a {@code password=} parameter)
   * rather than a {@code ${env:}}/{@code ${file:}} reference to one.
   */
  public static boolean hasLiteralCredential(String text) {
    if (text == null) {
      return false;
    }
    for (Pattern p : new Pattern[] {USERINFO, PARAMETER}) {
      Matcher m = p.matcher(text);
      while (m.find()) {
        if (isLiteral(p == USERINFO ? m.group(2) : m.group(3))) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean isLiteral(String value) {
    String bare = unquote(value);
    return !bare.isEmpty() && !bare.equals(MASK) && !IS_REFERENCE.matcher(bare).matches();
  }

  private static String mask(String value) {
    if (!isLiteral(value)) {
      return value;
    }
    char first = value.charAt(0);
    return (first == '"' || first == '\'') ? first + MASK + first : MASK;
  }

  private static String unquote(String value) {
    if (value.length() >= 2 && (value.charAt(0) == '"' || value.charAt(0) == '\'') && value.charAt(value.length() - 1) == value.charAt(0)) {
      return value.substring(1, value.length() - 1);
    }
    return value;
  }

  private static String replace(Pattern p, String text, Function<Matcher, String> with) {
    Matcher m = p.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(with.apply(m)));
    }
    m.appendTail(out);
    return out.toString();
  }
}
