package dev.floe.worker.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.testing.LocalWarehouse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new table is written with position deletes unless the sink names a mode, and records the mode
 * it was created in; an existing table is never switched by a default: it keeps its recorded mode,
 * and a table that recorded none (created when equality deletes were the default) keeps those.
 */
class WriteModeOfTableTest {
  @TempDir Path dir;

  private final DebeziumEnvelopes orders = DebeziumEnvelopes.forTopic(OrdersTable.TOPIC).columns(OrdersTable.columns(false)).key("id");

  @Test
  void decisionTable() {
    assertThat(WriteMode.forExistingTable(null, null)).isEqualTo(WriteMode.EQUALITY_DELETES);
    assertThat(WriteMode.forExistingTable(null, "position-deletes")).isEqualTo(WriteMode.POSITION_DELETES);
    assertThat(WriteMode.forExistingTable(null, "equality-deletes")).isEqualTo(WriteMode.EQUALITY_DELETES);
    assertThat(WriteMode.forExistingTable(WriteMode.EQUALITY_DELETES, "position-deletes")).isEqualTo(WriteMode.EQUALITY_DELETES);
    assertThat(WriteMode.forExistingTable(WriteMode.POSITION_DELETES, null)).isEqualTo(WriteMode.POSITION_DELETES);
  }

  @Test
  void aNewTableIsWrittenByPositionAndRecordsIt() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine engine = new SinkEngine(OrdersTable.sink(warehouse.spec(), "mode.fresh", 2, false, null), warehouse.catalog());

    // when a sink that names no mode writes a row and then replaces it
    engine.apply(List.of(orders.insert(0, OrdersTable.row(1, 7))), r -> {});
    engine.apply(List.of(orders.update(0, OrdersTable.row(1, 8))), r -> {});

    // then the table recorded the mode, the replaced row was deleted by position, and the lake holds the newest row
    Table table = engine.table();
    assertThat(table.properties()).containsEntry(WriteMode.TABLE_PROPERTY, "position-deletes");
    assertThat(deletes(table)).containsEntry("total-position-deletes", "1").containsEntry("total-equality-deletes", "0");
    assertThat(LocalWarehouse.rows(table)).singleElement().satisfies(r -> assertThat(r.get("qty")).isEqualTo(15));
  }

  @Test
  void aTableThatRecordedNoModeKeepsEqualityDeletesUnlessTheSinkNamesOne() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec named = OrdersTable.sink(warehouse.spec(), "mode.legacy", 2, false, WriteMode.EQUALITY_DELETES);
    new SinkEngine(named, warehouse.catalog()).apply(List.of(orders.insert(0, OrdersTable.row(1, 7))), r -> {});
    Table created = warehouse.catalog().loadTable(org.apache.iceberg.catalog.TableIdentifier.parse("mode.legacy"));
    created.updateProperties().remove(WriteMode.TABLE_PROPERTY).commit(); // as tables created before the mode was recorded

    // when a sink that names no mode replaces the row
    SinkEngine unnamed = new SinkEngine(OrdersTable.sink(warehouse.spec(), "mode.legacy", 2, false, null), warehouse.catalog());
    unnamed.apply(List.of(orders.update(0, OrdersTable.row(1, 8))), r -> {});

    // then the table was written as before, with an equality delete
    assertThat(deletes(unnamed.table())).containsEntry("total-equality-deletes", "1").containsEntry("total-position-deletes", "0");
    assertThat(LocalWarehouse.rows(unnamed.table())).singleElement().satisfies(r -> assertThat(r.get("qty")).isEqualTo(15));

    // and a sink that names position deletes writes by position from then on
    SinkEngine switched = new SinkEngine(OrdersTable.sink(warehouse.spec(), "mode.legacy", 2, false, WriteMode.POSITION_DELETES),
        warehouse.catalog());
    switched.apply(List.of(orders.update(0, OrdersTable.row(1, 9))), r -> {});
    assertThat(deletes(switched.table())).containsEntry("total-position-deletes", "1");
    assertThat(LocalWarehouse.rows(switched.table())).singleElement().satisfies(r -> assertThat(r.get("qty")).isEqualTo(24));
  }

  @Test
  void aTableThatRecordedEqualityDeletesKeepsThemUnderTheNewDefault() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    new SinkEngine(OrdersTable.sink(warehouse.spec(), "mode.kept", 2, false, WriteMode.EQUALITY_DELETES), warehouse.catalog())
        .apply(List.of(orders.insert(0, OrdersTable.row(1, 7))), r -> {});

    SinkEngine unnamed = new SinkEngine(OrdersTable.sink(warehouse.spec(), "mode.kept", 2, false, null), warehouse.catalog());
    unnamed.apply(List.of(orders.update(0, OrdersTable.row(1, 8))), r -> {});

    assertThat(unnamed.table().properties()).containsEntry(WriteMode.TABLE_PROPERTY, "equality-deletes");
    assertThat(deletes(unnamed.table())).containsEntry("total-equality-deletes", "1").containsEntry("total-position-deletes", "0");
  }

  private static Map<String, String> deletes(Table table) {
    Map<String, String> s = table.currentSnapshot().summary();
    return Map.of("total-equality-deletes", s.getOrDefault("total-equality-deletes", "0"),
        "total-position-deletes", s.getOrDefault("total-position-deletes", "0"));
  }
}
