package dev.floe.worker.bench;

import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The reference CDC workload: an {@code orders} table whose rows are inserted, updated and deleted
 * over a fixed key space, as Debezium's JSON-with-schema records in 4 partitions. Deterministic.
 */
public final class OrdersWorkload {
  public static final String TOPIC = "shop.public.orders";
  private static final int PARTITIONS = 4;
  private static final String[] STATUS = {"new", "paid", "shipped", "delivered", "returned"};

  private final int keys;
  private final Random random = new Random(42);
  private final DebeziumEnvelopes envelopes = DebeziumEnvelopes.forTopic(TOPIC).columns(List.of(
      ConnectColumn.int64("id").required(), ConnectColumn.string("customer"), ConnectColumn.string("status"),
      ConnectColumn.decimal("amount", 12, 2), ConnectColumn.string("note"), ConnectColumn.microTimestamp("updated_at"))).key("id");
  private final Map<Long, Map<String, Object>> current = new HashMap<>();

  public OrdersWorkload(int keys) {
    this.keys = keys;
  }

  /** The next {@code size} events: 10% deletes of live rows, the rest inserts or updates. */
  public List<RawRecord> nextBatch(int size) {
    List<RawRecord> out = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      long id = 1 + random.nextInt(keys);
      int partition = (int) (id % PARTITIONS);
      if (current.containsKey(id) && random.nextInt(10) == 0) {
        current.remove(id);
        out.add(envelopes.delete(partition, Map.of("id", id)));
        continue;
      }
      Map<String, Object> row = new HashMap<>();
      row.put("id", id);
      row.put("customer", "customer-" + (id % 5000));
      row.put("status", STATUS[random.nextInt(STATUS.length)]);
      row.put("amount", BigDecimal.valueOf(random.nextInt(1_000_000), 2));
      row.put("note", random.nextInt(4) == 0 ? null : "note " + random.nextInt(100));
      row.put("updated_at", LocalDateTime.of(2026, 1, 1, 0, 0).plusNanos(random.nextInt(1_000_000_000) * 1000L));
      boolean exists = current.put(id, row) != null;
      out.add(exists ? envelopes.update(partition, row) : envelopes.insert(partition, row));
    }
    return out;
  }

  /** The rows the source holds now. */
  public Map<Long, Map<String, Object>> current() {
    return current;
  }

  /** The current rows as snapshot reads ('r'), for writing the same table fresh. */
  public List<RawRecord> snapshotOfCurrent() {
    DebeziumEnvelopes fresh = DebeziumEnvelopes.forTopic("fresh." + TOPIC).columns(List.of(
        ConnectColumn.int64("id").required(), ConnectColumn.string("customer"), ConnectColumn.string("status"),
        ConnectColumn.decimal("amount", 12, 2), ConnectColumn.string("note"), ConnectColumn.microTimestamp("updated_at"))).key("id");
    List<RawRecord> out = new ArrayList<>(current.size());
    current.forEach((id, row) -> out.add(fresh.read((int) (id % PARTITIONS), row)));
    return out;
  }
}
