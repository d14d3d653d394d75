package dev.floe.worker.testing;

import dev.floe.worker.quickstart.PostgresCapture;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.Header;
import io.debezium.engine.format.Json;
import io.debezium.engine.format.KeyValueHeaderChangeEventFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Debezium's embedded PostgreSQL connector writing JSON with schemas, as Kafka Connect's
 * JsonConverter does in production; collects the records it emits.
 */
public final class DebeziumCapture implements AutoCloseable {
  /** One emitted record: its topic, key and value JSON (null value for a tombstone). */
  public record Captured(String topic, String key, String value, Map<String, String> headers) {}

  private final LinkedBlockingQueue<Captured> queue = new LinkedBlockingQueue<>();
  private final List<Captured> received = new ArrayList<>();
  private final DebeziumEngine<ChangeEvent<String, String>> engine;
  private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "debezium"));

  public DebeziumCapture(String slot, String tables) {
    Properties p = PostgresCapture.connectorProperties(Postgres.URL, Postgres.USER, Postgres.PASSWORD, tables, "floe", slot);
    p.setProperty("offset.flush.interval.ms", "60000");
    engine = DebeziumEngine.create(KeyValueHeaderChangeEventFormat.of(Json.class, Json.class, Json.class))
        .using(p)
        .notifying(e -> queue.add(new Captured(e.destination(), e.key(), e.value(), headers(e))))
        .build();
    executor.execute(engine);
  }

  /** Waits until {@code count} records in all have arrived, then returns all of them. */
  public List<Captured> awaitRecords(int count, Duration timeout) throws InterruptedException, TimeoutException {
    Instant deadline = Instant.now().plus(timeout);
    while (received.size() < count) {
      long left = Duration.between(Instant.now(), deadline).toMillis();
      if (left <= 0) {
        throw new TimeoutException("Debezium emitted " + received.size() + " of " + count + " records, last: "
            + (received.isEmpty() ? "none" : received.get(received.size() - 1).topic()));
      }
      Captured c = queue.poll(left, TimeUnit.MILLISECONDS);
      if (c != null) {
        received.add(c);
      }
    }
    return List.copyOf(received);
  }

  private static Map<String, String> headers(ChangeEvent<String, String> e) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Header<?> h : e.headers()) {
      out.put(h.getKey(), h.getValue() == null ? null : h.getValue().toString());
    }
    return out;
  }

  /** Header values as the bytes Kafka would carry. */
  public static Map<String, byte[]> headerBytes(Map<String, String> headers) {
    Map<String, byte[]> out = new LinkedHashMap<>();
    headers.forEach((k, v) -> out.put(k, bytes(v)));
    return out;
  }

  public static byte[] bytes(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws Exception {
    engine.close();
    executor.shutdown();
    executor.awaitTermination(30, TimeUnit.SECONDS);
  }
}
