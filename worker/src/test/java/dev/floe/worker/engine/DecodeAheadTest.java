package dev.floe.worker.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.Decoded;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.testing.LocalWarehouse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records decoded ahead of their batch (as the runtime does while the batch before commits) give
 * the table the plain path gives, also when a batch before them evolves the table and records
 * without schema need the evolved schema to be read.
 */
class DecodeAheadTest {
  private static final String TOPIC = "shop.public.items";
  private static final List<ConnectColumn> V1 = List.of(ConnectColumn.int64("id").required(), ConnectColumn.string("name"));
  private static final List<ConnectColumn> V2 = List.of(ConnectColumn.int64("id").required(), ConnectColumn.string("name"),
      ConnectColumn.int64("qty"));

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(WriteMode.class)
  void recordsDecodedBeforeTheBatchesAheadOfThemEvolveTheTableApplyAsIfDecodedAtApplyTime(WriteMode mode) {
    // given three batches: the first creates the table, the second adds a column, the third has
    // records without schema that carry it (read by the table's schema, as it is by then)
    DebeziumEnvelopes withSchema = DebeziumEnvelopes.forTopic(TOPIC).columns(V1).key("id");
    DebeziumEnvelopes schemaless = DebeziumEnvelopes.forTopic(TOPIC).columns(V2).key("id").withoutSchema();
    List<RawRecord> first = List.of(withSchema.insert(0, Map.of("id", 1L, "name", "a")), withSchema.insert(0, Map.of("id", 2L, "name", "b")));
    withSchema.columns(V2);
    List<RawRecord> second = List.of(withSchema.insert(0, Map.of("id", 3L, "name", "c", "qty", 7L)),
        withSchema.update(0, Map.of("id", 1L, "name", "a2", "qty", 1L)), withSchema.delete(0, Map.of("id", 2L)));
    List<RawRecord> readByTable = List.of(schemaless.insert(1, Map.of("id", 4L, "name", "d", "qty", 9L)),
        schemaless.update(1, Map.of("id", 3L, "name", "c2", "qty", 8L)));
    List<RawRecord> third = Stream.concat(readByTable.stream(), Stream.of(withSchema.tombstone(0, Map.of("id", 2L)))).toList();
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine ahead = new SinkEngine(spec(warehouse, "ahead.items", mode), warehouse.catalog());
    SinkEngine plain = new SinkEngine(spec(warehouse, "plain.items", mode), warehouse.catalog());

    // when every record is decoded before any batch applies, keeping its decode in place of its
    // bytes, and the batches apply with what was decoded (the plain engine gets copies that keep their bytes)
    List<List<RawRecord>> batches = List.of(first, second, third);
    List<List<RawRecord>> copies = batches.stream().map(b -> b.stream().map(r -> r.withBytes(r.key(), r.value())).toList()).toList();
    List<RawRecord> decoded = new ArrayList<>();
    Stream.of(first, second, third).flatMap(List::stream).forEach(r -> {
      Decoded d = ahead.decodeAhead(r);
      if (d != null) {
        r.keepDecoded(d);
        decoded.add(r);
      }
    });
    for (int i = 0; i < batches.size(); i++) {
      ahead.apply(batches.get(i), DeadLetters.DISCARD);
      plain.apply(copies.get(i), DeadLetters.DISCARD);
    }

    // then the records without schema were left to apply time (holding their bytes), and both tables hold the same rows
    assertThat(decoded).hasSize(first.size() + second.size() + 1).doesNotContainAnyElementsOf(readByTable)
        .allSatisfy(r -> assertThat(r.bytesReleased()).isTrue());
    assertThat(readByTable).noneMatch(RawRecord::bytesReleased);
    assertThat(LocalWarehouse.rows(ahead.table())).containsExactlyInAnyOrderElementsOf(LocalWarehouse.rows(plain.table()));
    assertThat(LocalWarehouse.rows(ahead.table())).anySatisfy(row -> assertThat(row).containsEntry("id", 4L).containsEntry("qty", 9L));
  }

  private static SinkSpec spec(LocalWarehouse warehouse, String table, WriteMode mode) {
    return new SinkSpec(new SourceSpec("localhost:9092", List.of(TOPIC), null, "floe-" + table, null, null),
        new TableSpec(warehouse.spec(), table, List.of(), List.of(), 2, mode, Map.of(), Map.of()), null, null, null);
  }
}
