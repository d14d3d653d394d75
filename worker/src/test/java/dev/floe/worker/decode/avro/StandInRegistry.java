package dev.floe.worker.decode.avro;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The two read endpoints of a schema registry over real HTTP on loopback, answering as Apicurio
 * Registry 3 does ({@code /apis/ccompat/v7/schemas/ids/{id}} as JSON, {@code
 * /apis/registry/v3/ids/globalIds/{id}} and {@code .../contentIds/{id}} as the schema text, a
 * JSON error body with 404), for the client's status handling. The real Apicurio server is
 * {@code testing.SchemaRegistryServer}; this one can also fail on demand.
 */
public final class StandInRegistry implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpServer server;
  private final Map<Long, String> schemas = new ConcurrentHashMap<>();
  private final AtomicInteger requests = new AtomicInteger();
  private volatile int failWith;
  private volatile String expectedAuthorization;

  public StandInRegistry() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Serves {@code schema} under {@code id} on every endpoint. */
  public StandInRegistry with(long id, org.apache.avro.Schema schema) {
    schemas.put(id, schema.toString());
    return this;
  }

  /** Answers every request with this status from now on (0: answer normally). */
  public void failWith(int status) {
    this.failWith = status;
  }

  /** Refuses requests without this Authorization header (401). */
  public void requireAuthorization(String header) {
    this.expectedAuthorization = header;
  }

  public int requests() {
    return requests.get();
  }

  private void handle(HttpExchange exchange) throws IOException {
    requests.incrementAndGet();
    String path = exchange.getRequestURI().getPath();
    if (failWith != 0) {
      respond(exchange, failWith, "{\"message\":\"unavailable\",\"error_code\":" + failWith + "}");
      return;
    }
    if (expectedAuthorization != null && !expectedAuthorization.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
      respond(exchange, 401, "{\"message\":\"unauthorized\",\"error_code\":401}");
      return;
    }
    String[] prefixes = {"/apis/ccompat/v7/schemas/ids/", "/apis/registry/v3/ids/globalIds/", "/apis/registry/v3/ids/contentIds/"};
    for (String prefix : prefixes) {
      if (path.startsWith(prefix)) {
        String schema = schemas.get(Long.parseLong(path.substring(prefix.length())));
        if (schema == null) {
          respond(exchange, 404, "{\"message\":\"No content with id\",\"error_code\":40403}");
        } else if (prefix.contains("ccompat")) {
          respond(exchange, 200, JSON.createObjectNode().put("schema", schema).toString());
        } else {
          respond(exchange, 200, schema);
        }
        return;
      }
    }
    respond(exchange, 404, "<html><body>Not Found</body></html>");
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
