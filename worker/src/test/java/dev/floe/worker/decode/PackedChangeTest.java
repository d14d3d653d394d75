package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.fold.Unchanged;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** A packed event gives back the values, key and LSN it was packed from, and refuses what it cannot hold exactly. */
class PackedChangeTest {
  private static final List<Type> TYPES = List.of(Types.LongType.get(), Types.IntegerType.get(), Types.DoubleType.get(),
      Types.DecimalType.of(12, 2), Types.TimestampType.withoutZone(), Types.StringType.get(), Types.DateType.get(),
      Types.DecimalType.of(30, 4));
  private static final EventSchema SCHEMA = new EventSchema(List.of(
      field("id", 0), field("qty", 1), field("ratio", 2), field("price", 3), field("at", 4), field("name", 5), field("day", 6),
      field("big", 7)));
  private static final PackedChange.Slots SLOTS = PackedChange.Slots.of(TYPES, 0, "id");
  private static final RawRecord RECORD = new RawRecord("t", 0, 7, new byte[0], new byte[0]);

  @Test
  void anUpsertPackedGivesBackItsEventValueForValue() {
    Object[] values = {42L, 7, 0.25, new BigDecimal("-123.45"), LocalDateTime.of(2026, 12, 5, 1, 2, 3, 456_789_000), "name",
        LocalDate.of(2026, 12, 5), new BigDecimal("12345678901234567890.1234")};
    ChangeEvent event = new ChangeEvent(Op.UPSERT, Map.of("id", 42L), SCHEMA, values, 99L, RECORD);

    PackedChange packed = SLOTS.pack(event);

    assertThat(packed).isNotNull();
    assertThat(packed.key()).isEqualTo(42L);
    assertThat(packed.lsnOrNone()).isEqualTo(99L);
    assertThat(packed.values()).containsExactly(values);
    ChangeEvent back = packed.toEvent();
    assertThat(back.op()).isEqualTo(Op.UPSERT);
    assertThat(back.key()).isEqualTo(Map.of("id", 42L));
    assertThat(back.values()).containsExactly(values);
    assertThat(back.lsn()).isEqualTo(99L);
    assertThat(back.record()).isSameAs(RECORD);
  }

  @Test
  void nullsStayNullsInNumbersAndObjects() {
    Object[] values = {42L, null, null, null, null, null, null, null};
    PackedChange packed = SLOTS.pack(new ChangeEvent(Op.UPSERT, Map.of("id", 42L), SCHEMA, values, null, RECORD));

    assertThat(packed.values()).containsExactly(values);
    assertThat(packed.lsnOrNone()).isEqualTo(ChangeEvent.NO_LSN);
  }

  @Test
  void aDeleteKeepsItsKeyAndLsnOnly() {
    PackedChange packed = SLOTS.pack(new ChangeEvent(Op.DELETE, Map.of("id", 5L), SCHEMA, null, 3L, RECORD));

    assertThat(packed.isDelete()).isTrue();
    assertThat(packed.toEvent().op()).isEqualTo(Op.DELETE);
    assertThat(packed.toEvent().key()).isEqualTo(Map.of("id", 5L));
    assertThat(packed.toEvent().values()).isNull();
  }

  @Test
  void whatItCannotHoldExactlyStaysUnpacked() {
    Object[] fine = {42L, 7, 0.25, new BigDecimal("1.00"), LocalDateTime.of(2026, 1, 1, 0, 0), "n", null, null};
    assertThat(SLOTS.pack(upsert(fine))).isNotNull();

    assertThat(SLOTS.pack(upsert(with(fine, 5, Unchanged.VALUE)))).as("a TOAST placeholder").isNull();
    assertThat(SLOTS.pack(upsert(with(fine, 1, 7L)))).as("a long in an int column").isNull();
    assertThat(SLOTS.pack(upsert(with(fine, 2, 0.25f)))).as("a float in a double column").isNull();
    assertThat(SLOTS.pack(upsert(with(fine, 3, new BigDecimal("1.0"))))).as("a decimal of another scale").isNull();
    assertThat(SLOTS.pack(upsert(with(fine, 4, LocalDateTime.of(2026, 1, 1, 0, 0, 0, 1))))).as("a timestamp finer than microseconds").isNull();
    assertThat(SLOTS.pack(new ChangeEvent(Op.UPSERT, Map.of("id", 43L), SCHEMA, fine, 1L, RECORD))).as("a key unlike the row's").isNull();
    assertThat(SLOTS.pack(new ChangeEvent(Op.UPSERT, Map.of("id", 42), SCHEMA, with(fine, 0, 42), 1L, RECORD))).as("an int key of a long column").isNull();
    assertThat(SLOTS.pack(new ChangeEvent(Op.UPSERT, Map.of("id", 42L), SCHEMA, fine, 1L, RECORD, Map.of("id", 41L))))
        .as("the create half of a key change").isNull();
    assertThat(SLOTS.pack(new ChangeEvent(Op.TRUNCATE, Map.of(), null, null, 1L, RECORD))).as("a truncate").isNull();
  }

  @Test
  void eventsPackedOneAfterAnotherKeepTheirOwnValuesAcrossChunks() {
    // given more events than one chunk holds, every fifth refused after some of its values were written
    int n = 3 * PackedChange.Chunk.SLOTS / 4;
    List<PackedChange> packed = new java.util.ArrayList<>();
    List<Object[]> expected = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      Object[] values = {(long) i, i % 3 == 0 ? null : i, i * 0.5, BigDecimal.valueOf(i, 2), LocalDateTime.of(2026, 1, 1, 0, 0).plusSeconds(i),
          "name-" + i, i % 2 == 0 ? null : LocalDate.of(2026, 1, 1), null};
      if (i % 5 == 4) {
        assertThat(SLOTS.pack(new ChangeEvent(Op.UPSERT, Map.of("id", (long) i), SCHEMA, with(values, 6, Unchanged.VALUE), 1L, RECORD))).isNull();
        continue;
      }
      // when each is packed as a decoding thread packs them
      packed.add(SLOTS.pack(new ChangeEvent(Op.UPSERT, Map.of("id", (long) i), SCHEMA, values, (long) i, RECORD)));
      expected.add(values);
    }

    // then each gives back exactly what it was packed from, refused events leaving nothing behind
    for (int i = 0; i < packed.size(); i++) {
      assertThat(packed.get(i).values()).as("event %d", i).containsExactly(expected.get(i));
      assertThat(packed.get(i).lsnOrNone()).isEqualTo((Long) expected.get(i)[0]);
    }
  }

  @Test
  void eachThreadPacksIntoItsOwnChunks() throws Exception {
    // given two threads packing at once
    int n = PackedChange.Chunk.SLOTS;
    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      List<java.util.concurrent.Future<List<PackedChange>>> parts = new java.util.ArrayList<>();
      for (int t = 0; t < 2; t++) {
        long offset = t * 1_000_000L;
        parts.add(threads.submit(() -> {
          List<PackedChange> out = new java.util.ArrayList<>();
          for (long i = offset; i < offset + n; i++) {
            out.add(SLOTS.pack(upsertOf(i)));
          }
          return out;
        }));
      }

      // then neither overwrote the other's values
      for (int t = 0; t < 2; t++) {
        long i = t * 1_000_000L;
        for (PackedChange p : parts.get(t).get()) {
          assertThat(p.values()).containsExactly(upsertOf(i++).values());
        }
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void stringsHeldAsBytesComeBackAsEqualStringsAndAsSlicesOfTheirBytesToWrite() {
    // given names met once (held as bytes), one of them not ASCII, and a value decoded again (held shared)
    String repeated = SharedStrings.shared(new String("city-packed".toCharArray()));
    repeated = SharedStrings.shared(new String("city-packed".toCharArray()));
    // (each other name a new instance, as a decoder makes it: a literal may be the instance another test had shared)
    String[] names = {new String("customer-1".toCharArray()), new String("Łódź €\uD83D\uDE00".toCharArray()), repeated,
        new String(new char[0])};
    for (String name : names) {
      Object[] values = {42L, 7, 0.25, new BigDecimal("1.00"), LocalDateTime.of(2026, 1, 1, 0, 0), name, null, null};

      // when packed
      PackedChange packed = SLOTS.pack(upsert(values));

      // then the event gives the text back, and the writer gets its UTF-8 bytes as they are
      assertThat(packed.values()).containsExactly(values);
      assertThat(packed.valueToWrite(5)).hasToString(name);
      if (name == repeated) {
        assertThat(packed.value(5)).isSameAs(repeated);
      } else {
        assertThat(packed.valueToWrite(5)).isInstanceOf(Utf8Slice.class);
        Utf8Slice slice = (Utf8Slice) packed.valueToWrite(5);
        assertThat(java.util.Arrays.copyOfRange(slice.bytes(), slice.offset(), slice.offset() + slice.byteLength()))
            .isEqualTo(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    }
  }

  @Test
  void textUtf8CannotHoldOrTooLongToShareStaysTheStringItWas() {
    String lone = "broken \uD800 surrogate";
    String longText = "x".repeat(PackedChange.Text.MAX_BYTES + 1);
    for (String text : List.of(lone, longText)) {
      PackedChange packed = SLOTS.pack(upsert(new Object[] {42L, 7, 0.25, new BigDecimal("1.00"), LocalDateTime.of(2026, 1, 1, 0, 0), text, null, null}));

      assertThat(packed.value(5)).isSameAs(text);
      assertThat(packed.valueToWrite(5)).isSameAs(text);
    }
  }

  @Test
  void stringsKeepTheirValuesAcrossTextArrays() {
    // given strings that fill several text arrays, some null, between events refused after their text was held
    List<PackedChange> packed = new java.util.ArrayList<>();
    List<Object[]> expected = new java.util.ArrayList<>();
    for (int i = 0; i < 3 * PackedChange.Text.BYTES / 200; i++) {
      String text = i % 7 == 0 ? null : (i + "-").repeat(1 + i % 60);
      Object[] values = {(long) i, i, 0.5, BigDecimal.valueOf(i, 2), LocalDateTime.of(2026, 1, 1, 0, 0), text, null, null};
      if (i % 5 == 4) {
        assertThat(SLOTS.pack(upsert(with(values, 4, LocalDateTime.of(2026, 1, 1, 0, 0, 0, 1))))).isNull();
      }
      packed.add(SLOTS.pack(new ChangeEvent(Op.UPSERT, Map.of("id", (long) i), SCHEMA, values, 1L, RECORD)));
      expected.add(values);
    }

    // then each event gives back its own text
    for (int i = 0; i < packed.size(); i++) {
      assertThat(packed.get(i).values()).as("event %d", i).containsExactly(expected.get(i));
    }
  }

  private static ChangeEvent upsertOf(long id) {
    Object[] values = {id, (int) (id % 1000), id / 4.0, BigDecimal.valueOf(id, 2), LocalDateTime.of(2026, 1, 1, 0, 0).plusSeconds(id),
        "n" + id, null, null};
    return new ChangeEvent(Op.UPSERT, Map.of("id", id), SCHEMA, values, id, RECORD);
  }

  private static ChangeEvent upsert(Object[] values) {
    return new ChangeEvent(Op.UPSERT, Map.of("id", 42L), SCHEMA, values, 1L, RECORD);
  }

  private static Object[] with(Object[] values, int i, Object v) {
    Object[] out = values.clone();
    out[i] = v;
    return out;
  }

  private static EventField field(String name, int i) {
    return new EventField(name, TYPES.get(i), i != 0, n -> null);
  }
}
