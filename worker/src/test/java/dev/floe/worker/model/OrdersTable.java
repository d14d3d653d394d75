package dev.floe.worker.model;

import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.fold.MergeRule;
import dev.floe.worker.quickstart.ConnectColumn;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The {@code orders} table of the property tests: its columns, schema versions and merge rules. */
public final class OrdersTable {
  public static final String TOPIC = "shop.public.orders";
  public static final int PARTITIONS = 2;

  /** Every column's merge rule: one of each, so every rule meets every kind of history. */
  public static final Map<String, MergeRule> RULES = Map.of(
      "qty", MergeRule.SUM,
      "price", MergeRule.LAST_NON_NULL,
      "hi", MergeRule.MAX,
      "lo", MergeRule.MIN,
      "since", MergeRule.FIRST);

  private OrdersTable() {}

  public static List<ConnectColumn> columns(boolean evolved) {
    List<ConnectColumn> cols = new ArrayList<>(List.of(
        ConnectColumn.int64("id").required(),
        ConnectColumn.string("region"),
        evolved ? ConnectColumn.int64("qty") : ConnectColumn.int32("qty"),
        ConnectColumn.decimal("price", 10, 2),
        ConnectColumn.string("note"),
        ConnectColumn.int64("hi"),
        ConnectColumn.int64("lo"),
        ConnectColumn.microTimestamp("since")));
    if (evolved) {
      cols.add(ConnectColumn.string("extra"));
    }
    return cols;
  }

  public static MergeRule rule(String column) {
    return RULES.getOrDefault(column, MergeRule.LAST);
  }

  public static SinkSpec sink(CatalogSpec catalog, String tableName, int formatVersion, boolean partitioned, WriteMode mode) {
    return new SinkSpec(
        new SourceSpec("localhost:9092", List.of(TOPIC), null, "floe-orders", null, null),
        new TableSpec(catalog, tableName, List.of(), partitioned ? List.of("region") : List.of(),
            formatVersion, mode, RULES, Map.of()),
        null, null, null);
  }

  /** A row of order {@code id} in region eu at price 2.50, with {@code qty} as given (a value of any type, to test schema changes). */
  public static Map<String, Object> row(long id, Object qty) {
    Map<String, Object> row = new java.util.HashMap<>();
    row.put("id", id);
    row.put("region", "eu");
    row.put("qty", qty);
    row.put("price", new java.math.BigDecimal("2.50"));
    return row;
  }

  public static int partitionOf(long id) {
    return (int) Math.floorMod(id, PARTITIONS);
  }
}
