package dev.floe.worker.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** The worker's HTTP endpoint: {@code /healthz}, {@code /readyz} and Prometheus {@code /metrics}. */
public final class HealthServer implements AutoCloseable {
  private final HttpServer server;

  public HealthServer(int port, BooleanSupplier live, BooleanSupplier ready, Supplier<String> metrics) throws IOException {
    server = HttpServer.create(new InetSocketAddress(port), 0);
    server.createContext("/healthz", ex -> respond(ex, live.getAsBoolean() ? 200 : 503, live.getAsBoolean() ? "ok\n" : "stopping\n", "text/plain"));
    server.createContext("/readyz", ex -> respond(ex, ready.getAsBoolean() ? 200 : 503, ready.getAsBoolean() ? "ready\n" : "not ready\n", "text/plain"));
    server.createContext("/metrics", ex -> respond(ex, 200, metrics.get(), "text/plain; version=0.0.4"));
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void respond(HttpExchange ex, int status, String body, String type) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
