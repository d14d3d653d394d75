package dev.floe.worker.config;

import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.floe.worker.fold.MergeRule;
import java.util.List;
import java.util.Map;

/** The Iceberg side of a sink: catalog, table name, key, partitioning, format and merge rules. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@ValidationRule(value = "!self.name.matches('" + TableSpec.TEMPLATE + "') || !has(self.primaryKey) || size(self.primaryKey) == 0",
    message = "primaryKey names columns of one table, but a name template routes each topic to its own table: leave it empty")
@ValidationRule(value = "!self.name.matches('" + TableSpec.TEMPLATE + "') || !has(self.partitionBy) || size(self.partitionBy) == 0",
    message = "partitionBy names columns of one table, but a name template routes each topic to its own table: give each such table its own sink")
public record TableSpec(
    @JsonPropertyDescription("The catalog that holds the table.") CatalogSpec catalog,
    @JsonPropertyDescription(
            "Table identifier, namespace.table (for example analytics.orders); or a template that routes"
                + " each topic to its own table: {schema} and {table} are the last two segments of"
                + " Debezium's topic <prefix>.<schema>.<table>, {topic} the whole topic (for example"
                + " lake.{schema}_{table}).")
        @Required @Pattern(TableSpec.NAME_PATTERN) @Size(max = 255) String name,
    @JsonPropertyDescription(
            "Primary-key columns; by default the columns of the Debezium key record.")
        List<String> primaryKey,
    @JsonPropertyDescription(
            "Partition fields for a new table: a column, or year(c), month(c), day(c), hour(c),"
                + " bucket(N, c), truncate(W, c).")
        List<String> partitionBy,
    @JsonPropertyDescription(
            "Iceberg format version of a new table: 2 or 3 (default 2). Version 2 position-delete"
                + " files are read by Spark, Trino, Flink, DuckDB and PyIceberg; version 3 writes"
                + " deletion vectors, which only readers with format v3 support read (Iceberg 1.8+"
                + " libraries; Spark 3.5 with Iceberg 1.10 does). An existing table keeps its version.")
        @Min(2) @Max(3) Integer formatVersion,
    @JsonPropertyDescription(
            "How upserts and deletes are written: position-deletes (default for a new table: a"
                + " primary-key index finds each replaced row, deleted by position, cheapest to read)"
                + " or equality-deletes (deletes by key, which every reader must match against the"
                + " data). A table records the mode it was created in and keeps it while this is"
                + " unset; tables created before the mode was recorded keep equality-deletes.")
        WriteMode writeMode,
    @JsonPropertyDescription(
            "Per-column merge rule: last (default), last-non-null, sum, min, max, first.")
        Map<String, MergeRule> mergeRules,
    @JsonPropertyDescription("Table properties set when the table is created.")
        Map<String, String> properties) {

  private static final String NAME_PART = "([A-Za-z_]|\\{(schema|table|topic)\\})([A-Za-z0-9_]|\\{(schema|table|topic)\\})*";

  /** A placeholder of a name template, in a form CEL string literals take (no backslashes). */
  public static final String TEMPLATE = "[{](schema|table|topic)[}]";

  /** namespace.table, where any part may hold {schema}, {table} or {topic}. */
  public static final String NAME_PATTERN = "^" + NAME_PART + "(\\." + NAME_PART + ")+$";

  public TableSpec {
    primaryKey = primaryKey == null ? List.of() : List.copyOf(primaryKey);
    partitionBy = partitionBy == null ? List.of() : List.copyOf(partitionBy);
    formatVersion = formatVersion == null ? 2 : formatVersion;
    mergeRules = mergeRules == null ? Map.of() : Map.copyOf(mergeRules);
    properties = properties == null ? Map.of() : Map.copyOf(properties);
  }

  /** The mode a table created now is written in: the configured one, else {@link WriteMode#DEFAULT}. */
  public WriteMode writeModeForNewTable() {
    return writeMode == null ? WriteMode.DEFAULT : writeMode;
  }

  /** The same table settings under another name (a table a name template routes to). */
  public TableSpec withName(String tableName) {
    return new TableSpec(catalog, tableName, primaryKey, partitionBy, formatVersion, writeMode, mergeRules, properties);
  }

  /** The merge rule of a column, {@code last} unless configured. */
  public MergeRule ruleFor(String column) {
    return mergeRules.getOrDefault(column, MergeRule.LAST);
  }
}
