package dev.floe.worker.model;

import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Turns script steps into the Kafka records Debezium would write: a key's changes in its partition,
 * a delete followed by a tombstone, a primary-key update as the old key's delete and the new key's
 * create sharing one LSN, a truncate in one partition, new schema after an ALTER.
 */
public final class OrdersSource {
  private final String topic;
  private final DebeziumEnvelopes envelopes;

  public OrdersSource() {
    this(OrdersTable.TOPIC);
  }

  public OrdersSource(String topic) {
    this.topic = topic;
    this.envelopes = DebeziumEnvelopes.forTopic(topic).columns(OrdersTable.columns(false)).key("id");
  }

  /**
   * The records of a batch; {@code model} is the expected table just before each step is applied
   * (the caller applies the steps to it), used to leave out key changes Debezium would not emit.
   */
  public List<RawRecord> records(List<Step> batch, OrdersModel model) {
    List<RawRecord> out = new ArrayList<>();
    for (Step step : batch) {
      out.addAll(records(step, model));
    }
    return out;
  }

  /**
   * The records of one step, in the order Debezium writes them, after which the step is applied to
   * {@code model}. A primary-key update is the {@code d} of the old key and its tombstone in the old
   * key's partition and the {@code c} of the new key in the new key's, all with one LSN.
   */
  public List<RawRecord> records(Step step, OrdersModel model) {
    List<RawRecord> out = new ArrayList<>();
    if (step instanceof Step.Rekey k && model.canRekey(k)) {
      Map<String, Object> row = new java.util.HashMap<>(k.values());
      row.put("id", k.newId());
      out.addAll(envelopes.keyUpdate(OrdersTable.partitionOf(k.id()), Map.of("id", k.id()), OrdersTable.partitionOf(k.newId()), row));
    }
    model.apply(step);
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
    return out;
  }

  /** The next offset of each partition after everything produced so far. */
  public Map<TopicPartition, Long> nextOffsets() {
    Map<TopicPartition, Long> out = new java.util.HashMap<>();
    envelopes.nextOffsets().forEach((p, o) -> out.put(new TopicPartition(topic, p), o));
    return out;
  }

  private static Map<String, Object> withId(Step.Upsert u) {
    Map<String, Object> row = new java.util.HashMap<>(u.values());
    row.put("id", u.id());
    return row;
  }
}
