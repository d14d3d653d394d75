package dev.floe.worker.fold;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.decode.ChangeEvent;
import dev.floe.worker.decode.Op;
import dev.floe.worker.decode.RawRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Folding a batch per key in source order, with truncates ordered across partitions by LSN. */
class BatchFolderTest {
  private static final MergeRule[] RULES = {MergeRule.LAST, MergeRule.SUM};

  private final List<ChangeEvent> events = new ArrayList<>();

  @Test
  void versionsOfAKeyFoldInOffsetOrderWhateverOrderTheyArriveIn() {
    upsert(0, 2, 1L, 5);
    upsert(0, 1, 1L, 3);
    FoldedBatch folded = fold(null);
    assertThat(folded.keys().get(key(1L)).partial()).containsExactly(1L, 8);
  }

  @Test
  void aDeleteResetsTheKeySoLaterVersionsStartAfresh() {
    upsert(0, 0, 1L, 5);
    delete(0, 1, 1L);
    upsert(0, 2, 1L, 2);
    KeyFold f = fold(null).keys().get(key(1L));
    assertThat(f.discardsStored()).isTrue();
    assertThat(f.partial()).containsExactly(1L, 2);
  }

  @Test
  void aTruncateInOnePartitionDropsOlderEventsOfOtherPartitionsByLsn() {
    upsertAt(1, 0, 1L, 5, 100L); // before the truncate, other partition
    truncateAt(0, 0, 150L);
    upsertAt(1, 1, 2L, 7, 200L); // after it
    FoldedBatch folded = fold(null);
    assertThat(folded.truncates()).isTrue();
    assertThat(folded.truncateLsn()).isEqualTo(150L);
    assertThat(folded.supersededByTruncate()).isEqualTo(1);
    assertThat(folded.keys()).containsOnlyKeys(key(2L));
    assertThat(folded.keys().get(key(2L)).discardsStored()).isTrue();
  }

  @Test
  void eventsOlderThanTheTablesTruncateWatermarkArriveLateAndAreDropped() {
    upsertAt(1, 5, 1L, 5, 120L);
    upsertAt(1, 6, 2L, 5, 180L);
    FoldedBatch folded = fold(150L);
    assertThat(folded.keys()).containsOnlyKeys(key(2L));
    assertThat(folded.truncates()).isFalse();
  }

  @Test
  void aRecordThatDoesNotFitTheTableIsRejectedAndTheRestFolds() {
    upsert(0, 0, 1L, 5);
    upsert(0, 1, -1L, 5); // the projection refuses negative ids below
    FoldedBatch folded = fold(null);
    assertThat(folded.rejected()).extracting(r -> r.reason()).containsExactly("negative id");
    assertThat(folded.keys()).containsOnlyKeys(key(1L));
  }

  @Test
  void aVersionWhoseMergeRuleFailsIsRejectedAndLeavesTheKeysRowAsItWas() {
    upsert(0, 0, 1L, Integer.MAX_VALUE);
    upsert(0, 1, 1L, 1); // the sum overflows an int
    upsert(0, 2, 1L, -5);
    FoldedBatch folded = fold(null);
    assertThat(folded.rejected()).extracting(r -> r.reason()).singleElement().asString().startsWith("merge rule failed");
    assertThat(folded.keys().get(key(1L)).partial()).containsExactly(1L, Integer.MAX_VALUE - 5);
  }

  private FoldedBatch fold(Long watermark) {
    return BatchFolder.fold(events, e -> {
      long id = (Long) e.key().get("id");
      if (id < 0) {
        throw new IllegalArgumentException("negative id");
      }
      return new BatchFolder.Projected(e, key(id), e.values() == null ? null : e.values().clone()); // the fold owns each projected row
    }, RULES, watermark);
  }

  private void upsert(int partition, long offset, long id, int qty) {
    upsertAt(partition, offset, id, qty, null);
  }

  private void upsertAt(int partition, long offset, long id, int qty, Long lsn) {
    events.add(new ChangeEvent(Op.UPSERT, Map.of("id", id), null, new Object[] {id, qty}, lsn, record(partition, offset)));
  }

  private void delete(int partition, long offset, long id) {
    events.add(new ChangeEvent(Op.DELETE, Map.of("id", id), null, null, null, record(partition, offset)));
  }

  private void truncateAt(int partition, long offset, long lsn) {
    events.add(new ChangeEvent(Op.TRUNCATE, Map.of(), null, null, lsn, record(partition, offset)));
  }

  private static RawRecord record(int partition, long offset) {
    return new RawRecord("t", partition, offset, null, null);
  }

  private static RowKey key(long id) {
    return new RowKey(new Object[] {id});
  }
}
