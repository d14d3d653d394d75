package dev.floe.worker.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves {@code ${env:NAME}} and {@code ${file:/path}} references in config values at the last
 * moment, so configs, logs and status only ever hold the reference.
 */
public final class SecretResolver {
  private static final Pattern REF = Pattern.compile("\\$\\{(env|file):([^}]+)}");
  /** Where the operator mounts referenced Secrets, one directory per Secret. */
  public static final String SECRETS_DIR = "/etc/floe/secrets";
  private final Function<String, String> env;

  public SecretResolver(Function<String, String> env) {
    this.env = env;
  }

  public static SecretResolver fromEnvironment() {
    return new SecretResolver(System::getenv);
  }

  /** Whether the value names a secret ({@code ${env:NAME}}, {@code ${file:/path}}) instead of holding one. */
  public static boolean containsReference(String value) {
    return value != null && REF.matcher(value).find();
  }

  public String resolve(String field, String value) {
    if (value == null) {
      return null;
    }
    Matcher m = REF.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String resolved = "env".equals(m.group(1)) ? env.apply(m.group(2)) : readFile(field, m.group(2));
      if (resolved == null) {
        throw new ConfigException(field, "environment variable " + m.group(2) + " is not set", "export " + m.group(2) + "=...");
      }
      KnownSecrets.register(resolved); // masked in every log line and message from now on
      m.appendReplacement(out, Matcher.quoteReplacement(resolved));
    }
    m.appendTail(out);
    return out.toString();
  }

  public Map<String, String> resolveAll(String field, Map<String, String> values) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    values.forEach((k, v) -> out.put(k, resolve(field + "." + k, v)));
    return out;
  }

  /**
   * The keys of a referenced Secret as properties: one file per key in {@code
   * $FLOE_SECRETS_DIR/<name>/} (default {@value #SECRETS_DIR}), where the operator mounts it.
   */
  public Map<String, String> secretDirectory(String field, String secretName) {
    Map<String, String> out = new java.util.TreeMap<>();
    if (secretName == null || secretName.isBlank()) {
      return out;
    }
    String root = env.apply("FLOE_SECRETS_DIR");
    Path dir = Path.of(root == null || root.isBlank() ? SECRETS_DIR : root, secretName);
    if (!Files.isDirectory(dir)) {
      throw new ConfigException(field, "secret " + secretName + " is not mounted at " + dir,
          "mount the Secret there, or set FLOE_SECRETS_DIR to the directory that holds " + secretName + "/");
    }
    try (var files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String key = f.getFileName().toString();
        if (!key.startsWith(".") && Files.isRegularFile(f)) { // Kubernetes keeps its ..data links hidden
          String value = Files.readString(f).strip();
          KnownSecrets.registerProperty(key, value);
          out.put(key, value);
        }
      }
    } catch (IOException e) {
      throw new ConfigException(field, "cannot read secret " + secretName + " at " + dir + ": " + e.getMessage(), "check the mount");
    }
    return out;
  }

  private static String readFile(String field, String path) {
    try {
      return Files.readString(Path.of(path)).strip();
    } catch (IOException e) {
      throw new ConfigException(field, "cannot read secret file " + path + ": " + e.getMessage(), "${file:/var/run/secrets/floe/s3-secret-key}");
    }
  }
}
