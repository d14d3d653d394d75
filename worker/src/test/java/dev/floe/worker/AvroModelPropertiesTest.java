package dev.floe.worker;

import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.AvroWire;
import dev.floe.worker.decode.ChangeDecoders;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.Script;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.testing.LocalWarehouse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The model's histories (inserts, updates, deletes, TOAST placeholders, key moves across
 * partitions, truncates, a schema change that widens a column and adds one, lagging partitions
 * and restarts) written as Debezium's Avro converter writes them, in either wire format, leave
 * the table equal to the source, as their JSON originals do ({@link ModelProperties}).
 */
class AvroModelPropertiesTest {
  private static final AtomicInteger TABLES = new AtomicInteger();
  private static Path dir;
  private static LocalWarehouse warehouse;

  @BeforeContainer
  static void warehouse() throws IOException {
    dir = Files.createTempDirectory("floe-avro-props");
    warehouse = new LocalWarehouse(dir);
  }

  @AfterContainer
  static void cleanup() {
    dev.floe.worker.testing.TempDirs.deleteOrWarn(dir);
  }

  @Provide
  Arbitrary<Script> laggingScripts() {
    return OrdersScripts.laggingScripts();
  }

  @Property(tries = 15)
  void theTableEqualsTheSourceWhateverTheWireFormat(@ForAll("laggingScripts") Script script, @ForAll AvroWire.Format format,
      @ForAll WriteMode mode) {
    AvroWire wire = new AvroWire();
    String table = "avro_props.orders_" + TABLES.incrementAndGet();
    ScriptPlayer.play(script, OrdersTable.sink(warehouse.spec(), table, 2, false, mode), warehouse.catalog(),
        r -> wire.rewrite(r, format), ChangeDecoders.avro(wire.schemas()));
  }
}
