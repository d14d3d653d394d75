package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.worker.testing.LocalWarehouse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The throwaway write that loads the Parquet writer before a woken worker's first commit. */
class WriterWarmUpTest {
  @TempDir Path dir;

  @Test
  void aRowOfEveryPrimitiveTypeIsWrittenOutsideTheTableAndLeavesNothingBehind() throws IOException {
    // given a table with a required column of every primitive type
    Schema schema = new Schema(List.of(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.required(2, "b", Types.BooleanType.get()),
        Types.NestedField.required(3, "i", Types.IntegerType.get()),
        Types.NestedField.required(4, "f", Types.FloatType.get()),
        Types.NestedField.required(5, "d", Types.DoubleType.get()),
        Types.NestedField.required(6, "day", Types.DateType.get()),
        Types.NestedField.required(7, "t", Types.TimeType.get()),
        Types.NestedField.required(8, "ts", Types.TimestampType.withoutZone()),
        Types.NestedField.required(9, "tstz", Types.TimestampType.withZone()),
        Types.NestedField.required(10, "s", Types.StringType.get()),
        Types.NestedField.required(11, "u", Types.UUIDType.get()),
        Types.NestedField.required(12, "fx", Types.FixedType.ofLength(3)),
        Types.NestedField.required(13, "bin", Types.BinaryType.get()),
        Types.NestedField.required(14, "dec", Types.DecimalType.of(12, 3)),
        Types.NestedField.optional(15, "tags", Types.ListType.ofOptional(16, Types.StringType.get()))), Set.of(1));
    Table table = table(schema);
    Set<Path> tempBefore = warmUpDirs();

    // when the writer is warmed up with it
    WriterWarmUp.write(WriterWarmUp.factoryFor(table, schema), schema, 3);

    // then nothing was added to the table, and the temporary file and directory are gone
    table.refresh();
    assertThat(table.currentSnapshot()).isNull();
    assertThat(warmUpDirs()).isEqualTo(tempBefore);
  }

  @Test
  void aSinkWhoseTableDoesNotExistYetWarmsUpInAnInMemoryTableAndLeavesNothingBehind() throws IOException {
    // given no table yet, and the properties a sink would create its table with
    Set<Path> tempBefore = warmUpDirs();

    // when the writer is warmed up for a new table of format 3, zstd-compressed
    WriterWarmUp.writeForNewTable(java.util.Map.of("write.parquet.compression-codec", "zstd"), 3);

    // then it wrote its row and manifest without failing, and the temporary file and directory are gone
    assertThat(warmUpDirs()).isEqualTo(tempBefore);
  }

  @Test
  void aRequiredNestedColumnHasNoZeroValueAndSaysWhich() {
    Schema schema = new Schema(List.of(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.required(2, "point", Types.StructType.of(Types.NestedField.required(3, "x", Types.IntegerType.get())))), Set.of(1));

    assertThatThrownBy(() -> WriterWarmUp.write(WriterWarmUp.factoryFor(table(schema), schema), schema, 2))
        .hasMessageContaining("required column point");
  }

  private Table table(Schema schema) {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    TableIdentifier name = TableIdentifier.parse("warm.t" + System.nanoTime());
    return warehouse.catalog().buildTable(name, schema).create();
  }

  private static Set<Path> warmUpDirs() throws IOException {
    try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return Set.copyOf(s.filter(p -> p.getFileName().toString().startsWith("floe-warm-up-")).toList());
    }
  }
}
