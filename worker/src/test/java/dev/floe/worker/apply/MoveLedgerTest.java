package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.TableSpec;
import dev.floe.worker.fold.RowKey;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The ledger of half-applied key changes survives its JSON form exactly, pending markers included. */
class MoveLedgerTest {
  private static final Schema SCHEMA = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "note", Types.StringType.get()),
      Types.NestedField.optional(3, "price", Types.DecimalType.of(12, 2)),
      Types.NestedField.optional(4, "day", Types.DateType.get()),
      Types.NestedField.optional(5, "at", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(6, "atz", Types.TimestampType.withZone()),
      Types.NestedField.optional(7, "t", Types.TimeType.get()),
      Types.NestedField.optional(8, "u", Types.UUIDType.get()),
      Types.NestedField.optional(9, "b", Types.BinaryType.get()),
      Types.NestedField.optional(10, "tags", Types.ListType.ofOptional(11, Types.StringType.get())),
      Types.NestedField.optional(12, "f", Types.DoubleType.get())), Set.of(1));
  private static final TableLayout LAYOUT = new TableLayout(SCHEMA, PartitionSpec.unpartitioned(),
      new TableSpec(null, "a.b", null, null, 3, null, null, null));

  @Test
  void departedImagesAndArrivalsRoundTripEveryType() {
    // given a removed image of every type, one of its values still pending on another key change
    Object[] image = {
        7L, new PendingValue(900L, 1, "x".repeat(3000)), new BigDecimal("1234567890.12"), LocalDate.of(2024, 2, 29),
        LocalDateTime.of(2024, 1, 1, 12, 0, 0, 123_456_000), OffsetDateTime.of(2024, 1, 1, 12, 0, 0, 1_000, ZoneOffset.UTC),
        LocalTime.of(23, 59, 59, 999_999_000), UUID.fromString("8a7e4e4b-0d4f-4c9c-9d8f-0c0c0c0c0c0c"),
        ByteBuffer.wrap(new byte[] {0, 1, (byte) 255}), List.of("a", "b"), 0.1};
    MoveLedger ledger = new MoveLedger(
        Map.of(800L, new MoveLedger.Departed(800L, new RowKey(new Object[] {7L}), image)),
        Map.of(900L, new MoveLedger.Arrived(900L, new RowKey(new Object[] {3L}), null, Set.of(1)),
            901L, new MoveLedger.Arrived(901L, new RowKey(new Object[] {4L}), new RowKey(new Object[] {5L}), Set.of(1, 2))));

    // when it is written and read back
    MoveLedger read = MoveLedger.decode(ledger.encode(LAYOUT), LAYOUT);

    // then every value is exact and the marker still says what settles it
    Object[] back = read.departed(800L).image();
    assertThat(back[1]).isEqualTo(new PendingValue(900L, 1, "x".repeat(3000)));
    for (int i = 0; i < image.length; i++) {
      if (i != 1) {
        assertThat(back[i]).as(SCHEMA.columns().get(i).name()).isEqualTo(image[i]);
      }
    }
    assertThat(read.departed(800L).oldKey()).isEqualTo(new RowKey(new Object[] {7L}));
    assertThat(read.arrived(900L).target()).isNull();
    assertThat(read.arrived(901L).target()).isEqualTo(new RowKey(new Object[] {5L}));
    assertThat(read.arrived(901L).columns()).containsExactly(1, 2);
    assertThat(read.isTarget(new RowKey(new Object[] {5L}))).isTrue();
    assertThat(read.encode(LAYOUT)).isEqualTo(ledger.encode(LAYOUT));
  }

  @Test
  void aTruncateDropsTheHalvesOlderThanIt() {
    MoveLedger ledger = new MoveLedger(Map.of(),
        Map.of(10L, new MoveLedger.Arrived(10L, new RowKey(new Object[] {1L}), null, Set.of()),
            30L, new MoveLedger.Arrived(30L, new RowKey(new Object[] {2L}), null, Set.of())));
    assertThat(ledger.withoutOlderThan(20L).arrived()).extracting(MoveLedger.Arrived::lsn).containsExactly(30L);
  }
}
