package dev.floe.worker.fold;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.decode.ChangeEvent;
import dev.floe.worker.decode.Op;
import dev.floe.worker.decode.RawRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** A large batch folds the same projected on every core and in one pass of log order as on one thread and sorted. */
class BatchFolderOnEveryCoreTest {
  private static final MergeRule[] RULES = {MergeRule.LAST, MergeRule.SUM, MergeRule.LAST_NON_NULL};
  private static final Function<ChangeEvent, BatchFolder.Projected> PROJECT = e -> {
    long id = (Long) e.key().get("id");
    if (id % 97 == 13) {
      throw new IllegalArgumentException("id " + id + " does not fit");
    }
    RowKey key = new RowKey(new Object[] {id});
    return e.op() == Op.DELETE ? new BatchFolder.Projected(e, key, null) : new BatchFolder.Projected(e, key, e.values().clone());
  };

  @Test
  void aLargeBatchOfInterleavedPartitionsFoldsAsTheSortedOneThreadedFoldDoes() {
    for (long seed = 1; seed <= 3; seed++) {
      // given 30k upserts, deletes and a truncate over 2k keys in 4 partitions, polled in interleaved runs
      List<ChangeEvent> batch = interleavedBatch(new Random(seed), 30_000, 2_000);

      // when it folds on every core (one pass of log order) and on one thread from a sorted copy
      FoldedBatch fast = BatchFolder.fold(batch, PROJECT, RULES, 5L, 1);
      List<ChangeEvent> sorted = new ArrayList<>(batch);
      Collections.shuffle(sorted, new Random(seed));
      FoldedBatch reference = BatchFolder.fold(sorted, PROJECT, RULES, 5L, Integer.MAX_VALUE);

      // then both reach the same rows, rejections and key moves
      assertThat(fast.keys().keySet()).containsExactlyElementsOf(reference.keys().keySet());
      reference.keys().forEach((k, f) -> {
        KeyFold g = fast.keys().get(k);
        assertThat(Arrays.asList(g.partial() == null ? new Object[0] : g.partial()))
            .as("key %s", k).containsExactlyElementsOf(Arrays.asList(f.partial() == null ? new Object[0] : f.partial()));
        assertThat(g.exists()).isEqualTo(f.exists());
        assertThat(g.discardsStored()).isEqualTo(f.discardsStored());
        assertThat(g.deletedInBatch()).isEqualTo(f.deletedInBatch());
      });
      assertThat(fast.rejected()).isNotEmpty().extracting(r -> r.record().toString() + r.reason())
          .containsExactlyElementsOf(reference.rejected().stream().map(r -> r.record().toString() + r.reason()).toList());
      assertThat(fast.supersededByTruncate()).isEqualTo(reference.supersededByTruncate()).isPositive();
      assertThat(fast.truncateLsn()).isEqualTo(reference.truncateLsn());
    }
  }

  @Test
  void aPartitionWhoseOffsetsGoBackIsSortedInstead() {
    TopicPartition tp = new TopicPartition("t", 0);
    List<ChangeEvent> batch = List.of(upsert(tp, 5, 1L, 1, 10L), upsert(tp, 3, 1L, 2, 11L), upsert(new TopicPartition("t", 1), 0, 2L, 1, 12L));
    assertThat(BatchFolder.inLogOrder(batch)).extracting(e -> e.record().toString()).containsExactly("t-0@3", "t-0@5", "t-1@0");
  }

  /** Runs of one partition at a time (as polls come), offsets rising in each partition; LSNs rising with the source. */
  private static List<ChangeEvent> interleavedBatch(Random random, int events, int keys) {
    TopicPartition[] partitions = {new TopicPartition("t", 2), new TopicPartition("t", 0), new TopicPartition("s", 1), new TopicPartition("t", 1)};
    long[] offsets = new long[partitions.length];
    List<ChangeEvent> out = new ArrayList<>(events);
    long lsn = 1;
    while (out.size() < events) {
      int p = random.nextInt(partitions.length);
      for (int run = 1 + random.nextInt(200); run > 0 && out.size() < events; run--) {
        long id = partitions.length * (long) random.nextInt(keys / partitions.length) + p; // a key stays in its partition
        long offset = offsets[p]++;
        lsn += 1 + random.nextInt(3);
        int dice = random.nextInt(100);
        if (dice < 10) {
          out.add(new ChangeEvent(Op.DELETE, Map.of("id", id), null, null, lsn, new RawRecord(partitions[p], offset, null, null, Map.of())));
        } else if (dice == 10 && out.size() > events / 2 && out.size() < events / 2 + 400) {
          out.add(new ChangeEvent(Op.TRUNCATE, Map.of(), null, null, lsn, new RawRecord(partitions[p], offset, null, null, Map.of())));
        } else {
          out.add(upsert(partitions[p], offset, id, random.nextInt(1000), lsn));
        }
      }
    }
    return out;
  }

  private static ChangeEvent upsert(TopicPartition tp, long offset, long id, int qty, Long lsn) {
    Object name = qty % 3 == 0 ? null : "n" + qty;
    return new ChangeEvent(Op.UPSERT, Map.of("id", id), null, new Object[] {id, qty, name}, lsn, new RawRecord(tp, offset, null, null, Map.of()));
  }
}
