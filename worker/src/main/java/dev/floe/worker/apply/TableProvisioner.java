package dev.floe.worker.apply;

import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.EventField;
import dev.floe.worker.decode.EventSchema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.Transactions;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Creates a sink's table from the first event's schema, and evolves it as the source evolves. */
public final class TableProvisioner {
  private static final Logger LOG = LoggerFactory.getLogger(TableProvisioner.class);

  private static final int MAX_EVOLVE_ATTEMPTS = 10;

  private TableProvisioner() {}

  /**
   * Creates the table: the key columns become required identifier fields, every other column is
   * optional (so a column the source drops can hold nulls), partitioned as configured.
   */
  public static Table create(Catalog catalog, TableIdentifier id, EventSchema event, List<String> keyColumns, TableSpec spec, boolean withLsn) {
    Set<String> keys = new HashSet<>(keyColumns);
    for (String k : keyColumns) {
      if (event.field(k) == null) {
        throw new IllegalArgumentException("primary-key column '" + k + "' is not a column of the source row " + event);
      }
    }
    List<Types.NestedField> fields = new ArrayList<>();
    Set<Integer> identifierIds = new HashSet<>();
    int fieldId = 1;
    for (EventField f : event.fields()) {
      boolean key = keys.contains(f.name());
      fields.add(key ? Types.NestedField.required(fieldId, f.name(), f.type()) : Types.NestedField.optional(fieldId, f.name(), f.type()));
      if (key) {
        identifierIds.add(fieldId);
      }
      fieldId++;
    }
    if (withLsn && event.field(TableLayout.LSN_COLUMN) == null) {
      fields.add(Types.NestedField.optional(fieldId, TableLayout.LSN_COLUMN, Types.LongType.get(),
          "Floe: source LSN of this row's last change"));
    }
    Schema schema = new Schema(fields, identifierIds);
    PartitionSpec.Builder partitioning = PartitionSpec.builderFor(schema);
    for (String p : spec.partitionBy()) {
      PartitionFields.addTo(partitioning, PartitionFields.parse(p));
    }
    Map<String, String> properties = new HashMap<>(spec.properties());
    properties.put(TableProperties.FORMAT_VERSION, String.valueOf(spec.formatVersion()));
    properties.putIfAbsent(TableProperties.DEFAULT_FILE_FORMAT, "parquet");
    // Recorded so that the table keeps its mode when a later release changes the default.
    properties.put(WriteMode.TABLE_PROPERTY, spec.writeModeForNewTable().text());
    withFastZstd(properties);
    for (Types.NestedField f : fields) {
      if (keys.contains(f.name()) && f.type().typeId() == Type.TypeID.UUID) {
        // Iceberg 1.11 compares uuid bounds signed where Parquet stores them unsigned, so delete
        // files get pruned away from data files they apply to (apache/iceberg#14500): a uuid key
        // keeps no bounds, and equality deletes always meet its data files.
        properties.putIfAbsent(TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + f.name(), "none");
      }
    }
    ensureNamespace(catalog, id.namespace());
    try {
      Table table = catalog.buildTable(id, schema).withPartitionSpec(partitioning.build()).withProperties(properties).create();
      LOG.info("created table {} key={} partitionBy={} format-version={} write-mode={}", id, keyColumns, spec.partitionBy(),
          spec.formatVersion(), spec.writeModeForNewTable().text());
      return table;
    } catch (AlreadyExistsException e) {
      return catalog.loadTable(id); // another worker created it first
    }
  }

  /** zstd's level that a new table's Parquet files are written at, unless the sink's table properties name a codec or a level. */
  static final String ZSTD_LEVEL = "1";

  /**
   * Writes zstd (Iceberg's default codec) at level 1 instead of its default 3, where the sink's
   * properties leave codec and level to Floe: on Parquet pages, already dictionary- and
   * run-length-encoded, level 1 wrote files within 2% of level 3's size, in 89% of the CPU for
   * {@code orders} rows and 94% for the contest's ({@code WriterCodecProbe}), read at the same
   * speed; every batch and every compaction writes.
   */
  static void withFastZstd(Map<String, String> properties) {
    String codec = properties.get(TableProperties.PARQUET_COMPRESSION);
    if ((codec == null || codec.equalsIgnoreCase("zstd")) && !properties.containsKey(TableProperties.PARQUET_COMPRESSION_LEVEL)) {
      properties.put(TableProperties.PARQUET_COMPRESSION, "zstd");
      properties.put(TableProperties.PARQUET_COMPRESSION_LEVEL, ZSTD_LEVEL);
    }
  }

  /** Applies the plan for an event schema; returns true when the table's schema changed. */
  public static boolean evolve(Table table, EventSchema event) {
    return evolve(table, event, null);
  }

  /**
   * Applies the plan for an event schema; returns true when the table's schema changed. A column
   * added with a default gets it as initial default (format v3), or a pending fill of the files
   * written before it (format v2, see {@link AddedDefaults}), in the same commit as the column.
   *
   * @param firstLsn the smallest source LSN among events of this schema (null when the source has none)
   */
  public static boolean evolve(Table table, EventSchema event, Long firstLsn) {
    for (int attempt = 1; ; attempt++) {
      TableMetadata base = ((HasTableOperations) table).operations().current();
      SchemaPlanner.Plan plan = SchemaPlanner.plan(base.schema(), event);
      if (plan.isEmpty()) {
        return false;
      }
      try {
        commit(table, base, plan, firstLsn);
        return true;
      } catch (ValidationException e) {
        if (attempt >= MAX_EVOLVE_ATTEMPTS) {
          throw e;
        }
        LOG.info("schema change of {} raced a commit (attempt {}): {}; planning again", table.name(), attempt, e.getMessage());
        table.refresh();
      }
    }
  }

  private static void commit(Table table, TableMetadata base, SchemaPlanner.Plan plan, Long firstLsn) {
    TableOperations ops = ((HasTableOperations) table).operations();
    boolean initialDefaults = base.formatVersion() >= 3;
    Transaction txn = Transactions.newTransaction(table.name(), new SequenceGuardedOperations(ops, base));
    UpdateSchema update = txn.updateSchema();
    for (Types.NestedField f : plan.additions()) {
      Object value = plan.defaultOf(f.name());
      Literal<?> literal = value == null || !initialDefaults ? null : AddedDefaults.literal(f.type(), value);
      if (literal != null) {
        // initial-default: rows of files written before the column read it; write-default likewise
        update.addColumn(f.name(), f.type(), literal);
      } else {
        update.addColumn(f.name(), f.type());
      }
    }
    for (Types.NestedField f : plan.widenings()) {
      update.updateColumn(f.name(), f.type().asPrimitiveType());
    }
    update.commit();
    Schema evolved = txn.table().schema();
    UpdateProperties properties = txn.updateProperties();
    List<String> filled = new ArrayList<>();
    for (Types.NestedField f : plan.additions()) {
      Object value = plan.defaultOf(f.name());
      if (value == null) {
        continue;
      }
      Types.NestedField added = evolved.findField(f.name());
      AddedDefaults.properties(added.fieldId(), added.type(), value, firstLsn).forEach(properties::set);
      boolean literal = initialDefaults && AddedDefaults.literal(f.type(), value) != null;
      if (!literal && base.lastSequenceNumber() > 0) {
        properties.set(AddedDefaults.fillKey(added.fieldId()), String.valueOf(base.lastSequenceNumber()));
        filled.add(f.name());
      }
    }
    properties.commit();
    txn.commitTransaction();
    table.refresh();
    LOG.info("evolved table {}: added {} widened {} defaults {}{}", table.name(),
        plan.additions().stream().map(f -> f.name() + " " + f.type()).toList(),
        plan.widenings().stream().map(f -> f.name() + " " + f.type()).toList(), plan.defaults(),
        filled.isEmpty() ? "" : "; existing rows of " + filled + " to be filled");
  }

  private static void ensureNamespace(Catalog catalog, Namespace namespace) {
    if (catalog instanceof SupportsNamespaces ns && !namespace.isEmpty() && !ns.namespaceExists(namespace)) {
      try {
        ns.createNamespace(namespace);
      } catch (org.apache.iceberg.exceptions.AlreadyExistsException ignored) {
        // created concurrently: what we wanted
      }
    }
  }
}
