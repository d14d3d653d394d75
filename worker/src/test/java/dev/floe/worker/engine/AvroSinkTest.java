package dev.floe.worker.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.config.SchemaRegistrySpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.AvroWire;
import dev.floe.worker.decode.ChangeDecoders;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.RejectedRecord;
import dev.floe.worker.decode.avro.SchemaId;
import dev.floe.worker.decode.avro.SchemaRegistryUnavailableException;
import dev.floe.worker.decode.avro.StandInRegistry;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.runtime.FailureClassifier;
import dev.floe.worker.testing.LocalWarehouse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An Avro sink end to end through the engine, writer schemas fetched over HTTP: a new writer
 * schema with a widened and an added column evolves the table as a changed JSON schema does; a
 * record naming an unknown schema, or bytes that do not fit theirs, is dead-lettered with the
 * reason while the rest commits; a registry that is down fails the batch as an outage, with
 * nothing dead-lettered and nothing committed, and the same batch applies once it is back.
 */
class AvroSinkTest {
  private static final String TOPIC = "shop.public.items";
  private static final List<ConnectColumn> V1 = List.of(ConnectColumn.int64("id").required(), ConnectColumn.int32("qty"),
      ConnectColumn.string("name"));
  private static final List<ConnectColumn> V2 = List.of(ConnectColumn.int64("id").required(), ConnectColumn.int64("qty"),
      ConnectColumn.string("name"), ConnectColumn.decimal("price", 10, 2));

  @TempDir Path dir;

  private final AvroWire wire = new AvroWire();
  private final DebeziumEnvelopes items = DebeziumEnvelopes.forTopic(TOPIC).columns(V1).key("id");

  @Test
  void aNewWriterSchemaWithAWidenedAndAnAddedColumnEvolvesTheTable() throws Exception {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    try (StandInRegistry registry = new StandInRegistry()) {
      SinkEngine engine = engine(warehouse, registry);
      List<RawRecord> v1 = List.of(avro(items.insert(0, row(1, 5, "a"))), avro(items.insert(0, row(2, 6, "b"))));
      serve(registry);
      engine.apply(v1, r -> {});
      assertThat(engine.table().schema().findField("qty").type()).isEqualTo(Types.IntegerType.get());

      Map<String, Object> widened = row(1, 5_000_000_000L, "a2");
      widened.put("price", new java.math.BigDecimal("9.99"));
      List<RawRecord> v2 = List.of(avro(items.columns(V2).update(0, widened)));
      serve(registry);
      engine.apply(v2, r -> {});

      assertThat(engine.table().schema().findField("qty").type()).isEqualTo(Types.LongType.get());
      assertThat(engine.table().schema().findField("price").type()).isEqualTo(Types.DecimalType.of(10, 2));
      assertThat(LocalWarehouse.rows(engine.table())).extracting(r -> Arrays.asList(r.get("id"), r.get("qty"), r.get("name"), r.get("price")))
          .containsExactlyInAnyOrder(Arrays.asList(1L, 5_000_000_000L, "a2", new java.math.BigDecimal("9.99")), Arrays.asList(2L, 6L, "b", null));
    }
  }

  @Test
  void unknownSchemasAndBytesThatDoNotFitTheirSchemaAreDeadLetteredWithTheReason() throws Exception {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    try (StandInRegistry registry = new StandInRegistry()) {
      SinkEngine engine = engine(warehouse, registry);
      RawRecord good = avro(items.insert(0, row(1, 5, "a")));
      RawRecord unknownId = withValue(avro(items.insert(0, row(2, 6, "b"))), 4242);
      RawRecord garbled = avro(items.insert(0, row(3, 7, "c")));
      garbled = new RawRecord(garbled.topic(), garbled.partition(), garbled.offset(), garbled.key(),
          Arrays.copyOf(garbled.value(), garbled.value().length - 3), garbled.headers());
      serve(registry);
      List<RejectedRecord> dead = new ArrayList<>();

      engine.apply(List.of(good, unknownId, garbled), dead::addAll);

      assertThat(LocalWarehouse.rows(engine.table())).extracting(r -> r.get("id")).containsExactly(1L);
      assertThat(dead).extracting(RejectedRecord::record).containsExactly(unknownId, garbled);
      assertThat(dead.get(0).reason()).contains("has no schema id 4242");
      assertThat(dead.get(1).reason()).contains("does not match its writer schema");
      assertThat(engine.offsets().nextOffset(garbled.topicPartition())).isEqualTo(garbled.offset() + 1);
    }
  }

  @Test
  void aRegistryThatIsDownIsAnOutageNothingIsDeadLetteredAndTheBatchAppliesOnceItIsBack() throws Exception {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    try (StandInRegistry registry = new StandInRegistry()) {
      SinkEngine engine = engine(warehouse, registry);
      List<RawRecord> batch = List.of(avro(items.insert(0, row(1, 5, "a"))), avro(items.insert(1, row(2, 6, "b"))));
      List<RejectedRecord> dead = new ArrayList<>();
      registry.failWith(503);

      assertThatThrownBy(() -> engine.apply(batch, dead::addAll)).isInstanceOf(SchemaRegistryUnavailableException.class)
          .satisfies(e -> assertThat(FailureClassifier.isPermanent(e)).isFalse());
      assertThat(dead).isEmpty();
      assertThat(engine.table()).isNull();

      registry.failWith(0);
      serve(registry);
      // as the runner does: retry until the registry is asked again (a registry found down rests a moment)
      await().atMost(Duration.ofSeconds(20)).ignoreException(SchemaRegistryUnavailableException.class).until(() -> {
        engine.apply(batch, dead::addAll);
        return true;
      });
      assertThat(dead).isEmpty();
      assertThat(LocalWarehouse.rows(engine.table())).extracting(r -> r.get("id")).containsExactlyInAnyOrder(1L, 2L);
    }
  }

  private SinkEngine engine(LocalWarehouse warehouse, StandInRegistry registry) {
    SourceSpec source = new SourceSpec("localhost:9092", List.of(TOPIC), null, "floe-items", null, null)
        .withAvro(SchemaRegistrySpec.at(registry.url()));
    SinkSpec spec = new SinkSpec(source, new TableSpec(warehouse.spec(), "avro.items", List.of(), List.of(), 2,
        WriteMode.EQUALITY_DELETES, Map.of(), Map.of()), null, null, null);
    return new SinkEngine(spec, warehouse.catalog(), ChangeDecoders.of(source, new SecretResolver(k -> null)));
  }

  /** Every writer schema the wire has handed out so far, on the registry. */
  private void serve(StandInRegistry registry) {
    for (long id = 1; ; id++) {
      try {
        registry.with(id, wire.writerSchema(SchemaId.confluent(id)));
      } catch (RuntimeException e) {
        return;
      }
    }
  }

  private RawRecord avro(RawRecord json) {
    return wire.rewrite(json, AvroWire.Format.CONFLUENT);
  }

  private static RawRecord withValue(RawRecord r, int schemaId) {
    byte[] v = r.value().clone();
    java.nio.ByteBuffer.wrap(v).putInt(1, schemaId);
    return new RawRecord(r.topic(), r.partition(), r.offset(), r.key(), v, r.headers());
  }

  private static Map<String, Object> row(long id, Object qty, String name) {
    Map<String, Object> row = new HashMap<>();
    row.put("id", id);
    row.put("qty", qty);
    row.put("name", name);
    return row;
  }
}
