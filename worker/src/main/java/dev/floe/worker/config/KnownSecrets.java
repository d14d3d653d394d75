package dev.floe.worker.config;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The secret values this process has resolved (from {@code ${env:}}, {@code ${file:}} or a
 * mounted Secret), so that {@link Redactor} masks them wherever they surface, in any library's
 * message. Process-wide because logging is.
 */
public final class KnownSecrets {
  /** Shorter values are not masked by value: "true" or "1" would blank out every log line. */
  static final int MIN_LENGTH = 4;
  private static final Set<String> VALUES = ConcurrentHashMap.newKeySet();
  private static volatile List<String> longestFirst = List.of();

  private KnownSecrets() {}

  public static void register(String secret) {
    if (secret == null || secret.strip().length() < MIN_LENGTH) {
      return;
    }
    boolean added = VALUES.add(secret.strip());
    // the same value as it appears inside a URI (a password with '@' or '/' is percent-encoded there)
    String encoded = URLEncoder.encode(secret.strip(), StandardCharsets.UTF_8);
    added |= VALUES.add(encoded);
    if (added) {
      // longest first, so a secret that contains another is masked whole
      longestFirst = VALUES.stream().sorted(Comparator.comparingInt(String::length).reversed()).toList();
    }
  }

  /**
   * Registers a property read from a Secret when it is secret-like: its key names a secret, or it
   * holds a credential (a JAAS config). Secrets also carry plain settings (security.protocol,
   * s3.endpoint), and masking those everywhere would blank out ordinary error messages.
   */
  public static void registerProperty(String key, String value) {
    if (CatalogSpec.isSecretKey(key) || Redactor.hasLiteralCredential(value)) {
      register(value);
    }
  }

  static List<String> values() {
    return longestFirst;
  }
}
