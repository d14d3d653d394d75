package dev.floe.worker.apply;

import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.fold.MergeRule;
import dev.floe.worker.fold.RowKey;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * What persisting the contest's index costs the applying thread: encoding a uuid-keyed index with
 * its merge state (a long summed, a string last-non-null). {@code -Dfloe.probe=true}, keys from
 * {@code -Dfloe.bench.keys} (10M as the contest at full size).
 */
class PersistedIndexProbe {
  static final Schema SCHEMA = new Schema(List.of(
      Types.NestedField.required(1, "uuid", Types.UUIDType.get()),
      Types.NestedField.optional(2, "requests", Types.LongType.get()),
      Types.NestedField.optional(3, "name", Types.StringType.get())), Set.of(1));

  static TableLayout layout() {
    return new TableLayout(SCHEMA, PartitionSpec.unpartitioned(), new TableSpec(CatalogSpec.local("/tmp/unused"), "t.t", List.of(), List.of(), 3,
        WriteMode.POSITION_DELETES, Map.of("requests", MergeRule.SUM, "name", MergeRule.LAST_NON_NULL), Map.of()));
  }

  /** An index of {@code keys} uuid keys over files of 200k rows, with the merge state of each row. */
  static PrimaryKeyIndex contestIndex(TableLayout layout, int keys, long seed) {
    PrimaryKeyIndex index = PrimaryKeyIndex.empty(layout, 1L);
    Random random = new Random(seed);
    int perFile = 200_000;
    for (int f = 0; f * perFile < keys; f++) {
      int rows = Math.min(perFile, keys - f * perFile);
      DataFile file = DataFiles.builder(PartitionSpec.unpartitioned()).withPath("/w/data/f-" + f + ".parquet")
          .withFileSizeInBytes(1).withRecordCount(rows).build();
      for (int p = 0; p < rows; p++) {
        UUID key = new UUID(random.nextLong(), random.nextLong());
        index.put(new RowKey(new Object[] {key}), file, p);
        index.mergeState().recordRow(file.location(), rows, p,
            new Object[] {key, (long) random.nextInt(1_000_000), random.nextInt(4) == 0 ? null : "name-" + random.nextInt(100_000)});
      }
      index.mergeState().sealFile(file.location());
    }
    return index;
  }

  @Test
  @EnabledIfSystemProperty(named = "floe.probe", matches = "true")
  void encodeSeconds() {
    int keys = Integer.getInteger("floe.bench.keys", 10_000_000);
    TableLayout layout = layout();
    PrimaryKeyIndex index = contestIndex(layout, keys, 1);
    double fast = Double.MAX_VALUE;
    double general = Double.MAX_VALUE;
    int bytes = 0;
    for (int round = 0; round < 3; round++) { // alternating, the best of each: the machine is shared
      long t0 = System.nanoTime();
      bytes = PersistedIndex.encode(index, layout, false).length;
      fast = Math.min(fast, (System.nanoTime() - t0) / 1e9);
      t0 = System.nanoTime();
      PersistedIndex.encode(index, layout, true);
      general = Math.min(general, (System.nanoTime() - t0) / 1e9);
    }
    System.out.printf(Locale.ROOT, "persisted index of %,d uuid keys with merge state: %,d bytes, encoded in %.2f s (general path %.2f s: %.1fx)%n",
        keys, bytes, fast, general, general / fast);
  }
}
