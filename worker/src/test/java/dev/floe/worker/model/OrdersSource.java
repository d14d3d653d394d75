package dev.floe.worker.model;

import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.testing.Envelopes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Turns script steps into the Kafka records Debezium would write: a key's changes in its partition,
 * a delete followed by a tombstone, a truncate in one partition, new schema after an ALTER.
 */
public final class OrdersSource {
  private final Envelopes envelopes = Envelopes.forTopic(OrdersTable.TOPIC).columns(OrdersTable.columns(false)).key("id");

  public List<RawRecord> records(List<Step> batch) {
    List<RawRecord> out = new ArrayList<>();
    for (Step step : batch) {
      if (step instanceof Step.Upsert u) {
        out.add(envelopes.update(OrdersTable.partitionOf(u.id()), withId(u)));
      } else if (step instanceof Step.Delete d) {
        int p = OrdersTable.partitionOf(d.id());
        out.add(envelopes.delete(p, Map.of("id", d.id())));
        out.add(envelopes.tombstone(p, Map.of("id", d.id())));
      } else if (step instanceof Step.Truncate t) {
        out.add(envelopes.truncate(t.partition()));
      } else if (step instanceof Step.EvolveSchema) {
        envelopes.columns(OrdersTable.columns(true));
      }
    }
    return out;
  }

  /** The next offset of each partition after everything produced so far. */
  public Map<TopicPartition, Long> nextOffsets() {
    Map<TopicPartition, Long> out = new java.util.HashMap<>();
    envelopes.nextOffsets().forEach((p, o) -> out.put(new TopicPartition(OrdersTable.TOPIC, p), o));
    return out;
  }

  private static Map<String, Object> withId(Step.Upsert u) {
    Map<String, Object> row = new java.util.HashMap<>(u.values());
    row.put("id", u.id());
    return row;
  }
}
