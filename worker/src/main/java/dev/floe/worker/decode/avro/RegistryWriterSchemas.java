package dev.floe.worker.decode.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.config.ConfigException;
import dev.floe.worker.config.KnownSecrets;
import dev.floe.worker.config.SchemaRegistrySpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.decode.Reasons;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.avro.NameValidator;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * Fetches writer schemas over HTTP: a Confluent-framed id from the Confluent-compatible API
 * ({@code /apis/ccompat/v7/schemas/ids/{id}}, which Apicurio 3 and Confluent's registry both
 * serve), Apicurio's header ids from its own API ({@code /apis/registry/v3/ids/globalIds/{id}},
 * {@code .../contentIds/{id}}). A plain JDK client: Apicurio's Java SDK 3.3.3 is not served from
 * Maven Central here, and its 3.1 SDK brings Vert.x, Netty and Kiota for two GET requests.
 */
public final class RegistryWriterSchemas implements WriterSchemas {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  private static final String[] API_SUFFIXES = {"/apis/ccompat/v7", "/apis/registry/v3", "/apis/registry/v2", "/apis"};

  private final String base;
  private final HttpClient http;
  private final String authorization;

  RegistryWriterSchemas(String url, HttpClient http, String authorization) {
    this.base = baseUrl(url);
    this.http = http;
    this.authorization = authorization;
  }

  /**
   * The client of a configured registry: its credentials resolved now (references only; the values
   * are masked in logs from here on) and its truststore loaded.
   */
  public static RegistryWriterSchemas of(SchemaRegistrySpec spec, SecretResolver secrets) {
    Map<String, String> fromSecret = secrets.secretDirectory("source.schemaRegistry.secretRef", spec.secretRef());
    String username = first(secrets.resolve("source.schemaRegistry.username", spec.username()), fromSecret.get("username"));
    String password = first(secrets.resolve("source.schemaRegistry.password", spec.password()), fromSecret.get("password"));
    String token = first(secrets.resolve("source.schemaRegistry.token", spec.token()), fromSecret.get("token"));
    // masked in every log line from now on, even when given literally (which validate warns about)
    KnownSecrets.register(password);
    KnownSecrets.register(token);
    String authorization = null;
    if (token != null) {
      authorization = "Bearer " + token;
    } else if (username != null && password != null) {
      authorization = "Basic " + Base64.getEncoder().encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
    }
    HttpClient.Builder http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).followRedirects(HttpClient.Redirect.NORMAL);
    if (spec.trustStore() != null && !spec.trustStore().isBlank()) {
      http.sslContext(trusting(spec.trustStore(), secrets.resolve("source.schemaRegistry.trustStorePassword", spec.trustStorePassword())));
    }
    return new RegistryWriterSchemas(spec.url(), http.build(), authorization);
  }

  /** The registry's base URL, without a trailing slash or an API path a user may have copied with it. */
  static String baseUrl(String url) {
    String u = url.strip();
    while (u.endsWith("/")) {
      u = u.substring(0, u.length() - 1);
    }
    for (String suffix : API_SUFFIXES) {
      if (u.endsWith(suffix)) {
        return u.substring(0, u.length() - suffix.length());
      }
    }
    return u;
  }

  @Override
  public Schema writerSchema(SchemaId id) {
    String path = switch (id.kind()) {
      case CONFLUENT -> "/apis/ccompat/v7/schemas/ids/" + id.id();
      case GLOBAL_ID -> "/apis/registry/v3/ids/globalIds/" + id.id();
      case CONTENT_ID -> "/apis/registry/v3/ids/contentIds/" + id.id();
    };
    HttpResponse<String> response = get(path, id);
    int status = response.statusCode();
    if (status == 200) {
      return parse(id, id.kind() == SchemaId.Kind.CONFLUENT ? ccompatSchema(id, response.body()) : response.body());
    }
    if (status == 404) {
      if (!isJson(response.body())) {
        // a registry words its 404 in JSON; an HTML page means the url points at something else, and
        // every record would be dead-lettered as "unknown schema"
        throw new SchemaRegistryRefusedException("the schema registry at " + base + " answered 404 for " + path
            + " without a registry's error body: is source.schemaRegistry.url the registry's base URL?");
      }
      throw new UnknownSchemaException("the schema registry has no " + id + " (404 for " + path + ")");
    }
    if (status == 401 || status == 403) {
      throw new SchemaRegistryRefusedException("the schema registry at " + base + " refuses us (" + status + " for " + path
          + "): check source.schemaRegistry's credentials");
    }
    if (status >= 500 || status == 429 || status == 408) {
      throw new SchemaRegistryUnavailableException("the schema registry at " + base + " answered " + status + " for " + path
          + ": " + Reasons.abbreviated(response.body()), null);
    }
    throw new SchemaRegistryRefusedException("the schema registry at " + base + " answered " + status + " for " + path
        + ": " + Reasons.abbreviated(response.body()));
  }

  private HttpResponse<String> get(String path, SchemaId id) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(REQUEST_TIMEOUT).GET()
        .header("Accept", "application/json, application/vnd.schemaregistry.v1+json, */*");
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new SchemaRegistryUnavailableException("the schema registry at " + base + " cannot be reached for " + id + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SchemaRegistryUnavailableException("interrupted while asking the schema registry for " + id, e);
    }
  }

  /** The schema text of a ccompat answer, {@code {"schema": "...", "schemaType": ...}}; only Avro is read. */
  private static String ccompatSchema(SchemaId id, String body) {
    JsonNode node;
    try {
      node = JSON.readTree(body);
    } catch (IOException e) {
      throw new UnknownSchemaException("the schema registry's answer for " + id + " is not JSON: " + Reasons.abbreviated(body));
    }
    String type = node.path("schemaType").asText("AVRO");
    if (!type.equalsIgnoreCase("AVRO")) {
      throw new UnknownSchemaException(id + " is a " + type + " schema, not Avro: is source.format right?");
    }
    if (!node.path("schema").isTextual()) {
      throw new UnknownSchemaException("the schema registry's answer for " + id + " has no schema: " + Reasons.abbreviated(body));
    }
    return node.get("schema").textValue();
  }

  private static Schema parse(SchemaId id, String text) {
    try {
      // a reader takes the writer's schema as the registry holds it: names a strict parser refuses
      // (a table named 2024_orders) and defaults that do not fit were accepted when it was written
      return new Schema.Parser(NameValidator.NO_VALIDATION).setValidateDefaults(false).parse(text);
    } catch (SchemaParseException | NullPointerException e) {
      throw new UnknownSchemaException(id + " is not an Avro schema (" + e.getMessage() + "): " + Reasons.abbreviated(text));
    }
  }

  private static boolean isJson(String body) {
    String b = body == null ? "" : body.strip();
    return b.startsWith("{");
  }

  private static String first(String a, String b) {
    return a != null && !a.isBlank() ? a : (b != null && !b.isBlank() ? b : null);
  }

  /** An SSL context trusting the certificates of a PKCS12/JKS truststore or a PEM file. */
  static SSLContext trusting(String path, String password) {
    try {
      KeyStore store;
      byte[] bytes = Files.readAllBytes(Path.of(path));
      if (new String(bytes, 0, Math.min(bytes.length, 64), StandardCharsets.US_ASCII).contains("-----BEGIN")) {
        store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        int i = 0;
        try (InputStream in = Files.newInputStream(Path.of(path))) {
          for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
            store.setCertificateEntry("registry-" + i++, c);
          }
        }
      } else {
        // PKCS12 is the JDK's default type; its loader reads JKS files too
        store = KeyStore.getInstance(path.toLowerCase(Locale.ROOT).endsWith(".jks") ? "JKS" : "PKCS12");
        try (InputStream in = Files.newInputStream(Path.of(path))) {
          store.load(in, password == null ? null : password.toCharArray());
        }
      }
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new ConfigException("source.schemaRegistry.trustStore", "cannot load truststore " + path + ": " + e.getMessage(),
          "a PKCS12 or JKS truststore (with trustStorePassword) or a PEM file of CA certificates");
    }
  }
}
