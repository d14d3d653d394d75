package dev.floe.worker.quickstart;

import dev.floe.worker.decode.RawRecord;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A stream of Debezium events for an {@code orders} table, as the PostgreSQL connector writes them:
 * inserts, updates and deletes (with tombstones) over a key space, keys spread over partitions.
 * Keeps the source table's current rows, so a run can be checked against it.
 */
public final class OrdersStream {
  private static final String[] STATUS = {"new", "paid", "shipped", "delivered", "returned"};
  private static final String[] CITY = {"Lisbon", "Oslo", "Tallinn", "Porto", "Ghent", "Turku"};

  private final int keys;
  private final int partitions;
  private final Random random;
  private final DebeziumEnvelopes envelopes;
  private final Map<Long, Map<String, Object>> rows = new TreeMap<>();
  private long events;

  public OrdersStream(String topic, int keys, int partitions, long seed) {
    this.keys = keys;
    this.partitions = partitions;
    this.random = new Random(seed);
    this.envelopes = DebeziumEnvelopes.forTopic(topic).columns(List.of(
        ConnectColumn.int64("id").required(), ConnectColumn.string("customer"), ConnectColumn.string("city"),
        ConnectColumn.string("status"), ConnectColumn.decimal("amount", 12, 2), ConnectColumn.microTimestamp("updated_at")))
        .key("id");
  }

  /** The next {@code n} change events (a delete counts one event; its tombstone comes with it). */
  public List<RawRecord> next(int n) {
    List<RawRecord> out = new ArrayList<>(n + n / 8);
    for (int i = 0; i < n; i++) {
      events++;
      long id = 1 + random.nextInt(keys);
      int partition = (int) (id % partitions);
      if (rows.containsKey(id) && random.nextInt(8) == 0) {
        rows.remove(id);
        out.add(envelopes.delete(partition, Map.of("id", id)));
        out.add(envelopes.tombstone(partition, Map.of("id", id)));
        continue;
      }
      Map<String, Object> row = new HashMap<>();
      row.put("id", id);
      row.put("customer", "customer-" + (1 + random.nextInt(Math.max(1, keys / 4))));
      row.put("city", CITY[random.nextInt(CITY.length)]);
      row.put("status", STATUS[random.nextInt(STATUS.length)]);
      row.put("amount", BigDecimal.valueOf(100 + random.nextInt(100_000), 2));
      row.put("updated_at", LocalDateTime.of(2026, 11, 29, 9, 0).plusNanos(events * 1_000_000L));
      boolean exists = rows.put(id, row) != null;
      out.add(exists ? envelopes.update(partition, row) : envelopes.insert(partition, row));
    }
    return out;
  }

  /** The source table's rows after everything produced so far. */
  public Map<Long, Map<String, Object>> rows() {
    return rows;
  }

  public long events() {
    return events;
  }
}
