package dev.floe.worker.engine;

import dev.floe.worker.decode.RawRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A batch cut at the first record of each partition that the table cannot take. Order matters only
 * within a partition, so every record before the cut of its partition (and every record of a
 * partition without one) can still commit; the record at the cut, and all after it in its
 * partition, wait for the operator.
 *
 * @param applicable the records that can still commit, in the batch's order
 * @param stoppedAt the first offending record of each partition that has one
 */
public record BatchCut(List<RawRecord> applicable, List<RawRecord> stoppedAt) {

  public static BatchCut at(List<RawRecord> batch, Collection<RawRecord> offending) {
    Map<TopicPartition, Long> cut = new HashMap<>();
    for (RawRecord r : offending) {
      cut.merge(r.topicPartition(), r.offset(), Math::min);
    }
    List<RawRecord> applicable = new ArrayList<>(batch.size());
    Map<TopicPartition, RawRecord> stoppedAt = new LinkedHashMap<>();
    for (RawRecord r : batch) {
      Long at = cut.get(r.topicPartition());
      if (at == null || r.offset() < at) {
        applicable.add(r);
      } else if (r.offset() == at) {
        stoppedAt.putIfAbsent(r.topicPartition(), r);
      }
    }
    return new BatchCut(List.copyOf(applicable), List.copyOf(stoppedAt.values()));
  }
}
