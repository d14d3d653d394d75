package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.fold.MergeRule;
import dev.floe.worker.fold.RowKey;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The persisted index's fast encoding (a key of one long, int or uuid written from its longs,
 * merge-state longs, ints, doubles, floats and strings from their arrays) writes exactly the bytes of the general
 * path, every key and value as an object through Iceberg's single-value encoding.
 */
class PersistedIndexEncodingTest {
  @ParameterizedTest
  @ValueSource(strings = {"long", "int", "uuid", "string", "composite"})
  void theFastEncodingIsTheGeneralOneByteForByte(String keyType) {
    // given an index of 3 files whose rows hold every kind of merge-state value, nulls among them
    Type type = switch (keyType) {
      case "int" -> Types.IntegerType.get();
      case "uuid" -> Types.UUIDType.get();
      case "string", "composite" -> Types.StringType.get();
      default -> Types.LongType.get();
    };
    Schema schema = new Schema(List.of(
        Types.NestedField.required(1, "k", type),
        Types.NestedField.required(2, "k2", Types.IntegerType.get()),
        Types.NestedField.optional(3, "total", Types.LongType.get()),
        Types.NestedField.optional(4, "low", Types.IntegerType.get()),
        Types.NestedField.optional(5, "name", Types.StringType.get()),
        Types.NestedField.optional(6, "amount", Types.DecimalType.of(10, 2)),
        Types.NestedField.optional(7, "ratio", Types.DoubleType.get()),
        Types.NestedField.optional(8, "weight", Types.FloatType.get())), keyType.equals("composite") ? Set.of(1, 2) : Set.of(1));
    List<String> key = keyType.equals("composite") ? List.of("k", "k2") : List.of("k");
    TableLayout layout = new TableLayout(schema, PartitionSpec.unpartitioned(), new TableSpec(CatalogSpec.local("/tmp/unused"), "t.t",
        key, List.of(), 3, WriteMode.POSITION_DELETES,
        Map.of("total", MergeRule.SUM, "low", MergeRule.MIN, "name", MergeRule.LAST_NON_NULL, "amount", MergeRule.SUM,
            "ratio", MergeRule.MAX, "weight", MergeRule.SUM), Map.of()));
    PrimaryKeyIndex index = PrimaryKeyIndex.empty(layout, 42L);
    Random random = new Random(7);
    for (int f = 0; f < 3; f++) {
      int rows = 700;
      DataFile file = DataFiles.builder(PartitionSpec.unpartitioned()).withPath("/w/data/f-" + f + ".parquet")
          .withFileSizeInBytes(1).withRecordCount(rows).build();
      for (int p = 0; p < rows; p++) {
        long n = random.nextLong();
        Object k = switch (keyType) {
          case "int" -> (int) n;
          case "uuid" -> new UUID(n, random.nextLong());
          case "string", "composite" -> "key-" + n + (n % 3 == 0 ? "-ü€" : "");
          default -> n;
        };
        Object[] row = {k, p, random.nextInt(5) == 0 ? null : random.nextLong(), random.nextInt(5) == 0 ? null : random.nextInt(),
            random.nextInt(5) == 0 ? null : random.nextInt(7) == 0 ? "" : "näme-" + random.nextInt(1000),
            random.nextInt(5) == 0 ? null : BigDecimal.valueOf(random.nextInt(1_000_000), 2),
            random.nextInt(5) == 0 ? null : random.nextInt(9) == 0 ? Double.NaN : random.nextGaussian() * 1e6,
            random.nextInt(5) == 0 ? null : random.nextInt(9) == 0 ? -0.0f : random.nextFloat() * 1e3f};
        index.put(keyType.equals("composite") ? new RowKey(new Object[] {k, p}) : new RowKey(new Object[] {k}), file, p);
        index.mergeState().recordRow(file.location(), rows, p, row);
      }
      index.mergeState().sealFile(file.location());
    }

    // when it is encoded both ways
    byte[] fast = PersistedIndex.encode(index, layout, false);
    byte[] general = PersistedIndex.encode(index, layout, true);

    // then the bytes are the same
    assertThat(index.mergeState().columns()).hasSize(6);
    assertThat(fast).isEqualTo(general);
  }
}
