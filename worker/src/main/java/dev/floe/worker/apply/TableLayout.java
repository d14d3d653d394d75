package dev.floe.worker.apply;

import dev.floe.worker.config.TableSpec;
import dev.floe.worker.decode.ChangeEvent;
import dev.floe.worker.decode.EventField;
import dev.floe.worker.decode.EventSchema;
import dev.floe.worker.decode.Op;
import dev.floe.worker.fold.BatchFolder.Projected;
import dev.floe.worker.fold.MergeRule;
import dev.floe.worker.fold.RowKey;
import dev.floe.worker.fold.Unchanged;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A table as the engine writes it: its top-level columns in order, the key columns, the partition
 * spec and each column's merge rule; projects change events onto those columns.
 */
public final class TableLayout {
  /**
   * The source LSN of each row's last change, kept by Floe for sources that have one (PostgreSQL)
   * so that a TRUNCATE arriving late removes only the rows older than it.
   */
  public static final String LSN_COLUMN = "_floe_lsn";

  private final Schema schema;
  /**
   * An empty record of the schema, copied per row: {@code GenericRecord.create} looks its field
   * names up in Iceberg's shared Caffeine cache, whose upkeep woke a pool thread often enough to
   * take a seventh of the contest's Parquet writing.
   */
  private final GenericRecord emptyRecord;
  private final int lsnPosition;
  private final PartitionSpec spec;
  private final List<Types.NestedField> columns;
  private final String[] keyNames;
  private final int[] keyPositions;
  private final MergeRule[] rules;
  private final Map<EventSchema, int[]> projections = new IdentityHashMap<>();
  /** Per column: the source default it was added with (null when none), and the LSN bound of {@link AddedDefaults}. */
  private final Object[] addedDefaults;
  private final long[] addedBeforeLsn;
  /** Per event schema: the positions of columns it lacks that were added with a default. */
  private final Map<EventSchema, int[]> defaulted = new IdentityHashMap<>();
  /** Per event schema: whether its upserts project to their own values ({@link #valuesAreRows}). */
  private final Map<EventSchema, Boolean> asItIs = new IdentityHashMap<>();

  public TableLayout(Schema schema, PartitionSpec spec, TableSpec config) {
    this(schema, spec, config, Map.of());
  }

  public TableLayout(Schema schema, PartitionSpec spec, TableSpec config, Map<Integer, AddedDefaults.Added> added) {
    this.schema = schema;
    this.emptyRecord = GenericRecord.create(schema);
    this.spec = spec;
    this.columns = schema.columns();
    List<String> key = schema.identifierFieldNames().stream()
        .sorted((a, b) -> Integer.compare(position(a), position(b)))
        .toList();
    if (key.isEmpty()) {
      throw new IllegalStateException("table has no identifier fields (primary key); Floe needs one to upsert");
    }
    this.keyNames = key.toArray(String[]::new);
    this.keyPositions = key.stream().mapToInt(this::position).toArray();
    this.rules = columns.stream()
        .map(c -> c.name().equals(LSN_COLUMN) ? MergeRule.LAST : config.ruleFor(c.name()))
        .toArray(MergeRule[]::new);
    this.lsnPosition = position(LSN_COLUMN);
    this.addedDefaults = new Object[columns.size()];
    this.addedBeforeLsn = new long[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      AddedDefaults.Added a = added.get(columns.get(i).fieldId());
      if (a != null && a.beforeLsn() != null) {
        addedDefaults[i] = a.value();
        addedBeforeLsn[i] = a.beforeLsn();
      }
    }
  }

  /** The {@value #LSN_COLUMN} column, or null when the table has none. */
  public Types.NestedField lsnColumn() {
    return lsnPosition < 0 ? null : columns.get(lsnPosition);
  }

  public static TableLayout of(Table table, TableSpec config) {
    return new TableLayout(table.schema(), table.spec(), config, AddedDefaults.read(table.properties(), table.schema()));
  }

  public Schema schema() {
    return schema;
  }

  public PartitionSpec spec() {
    return spec;
  }

  public boolean partitioned() {
    return spec.isPartitioned();
  }

  public MergeRule[] rules() {
    return rules;
  }

  public String[] keyNames() {
    return keyNames;
  }

  /** The column at a position of the table's rows. */
  public Types.NestedField column(int position) {
    return columns.get(position);
  }

  /** The positions of the key columns in a row, in key order. */
  public int[] keyPositions() {
    return keyPositions.clone();
  }

  /** The table position of the i-th key column, without copying {@link #keyPositions()} (read once per row). */
  public int keyPosition(int i) {
    return keyPositions[i];
  }

  /** The position of the LSN bookkeeping column, or -1 when the table has none. */
  public int lsnPosition() {
    return lsnPosition;
  }

  /** The position of a column by name, or -1. */
  public int positionOf(String name) {
    return position(name);
  }

  public int columnCount() {
    return columns.size();
  }

  /**
   * Projects an upsert or delete onto the table's columns; a value that does not fit throws. An
   * upsert whose values are the table's row as they are (see {@link #projectsAsItIs}) is projected
   * to its own values, which the fold only reads; any other is {@link #projectCopying copied}.
   * Safe on several threads at once once an upsert of each event schema was projected (its caches
   * are then only read).
   */
  public Projected project(ChangeEvent e) {
    RowKey rowKey = keyOf(e);
    if (e.op() == Op.UPSERT && asItIs.computeIfAbsent(e.schema(), this::valuesAreRows) && fitsAsItIs(e.values(), rowKey)) {
      return new Projected(e, rowKey, e.values(), e.previousKey() == null ? null : keyOf(e.previousKey()));
    }
    return projectCopying(e, rowKey);
  }

  /**
   * The general projection, and the reference {@link #project} is tested against: an upsert's
   * values copied into a new row in table order, coerced to the columns' types, the key, LSN and
   * defaults of added columns filled in.
   */
  public Projected projectCopying(ChangeEvent e) {
    return projectCopying(e, keyOf(e));
  }

  private Projected projectCopying(ChangeEvent e, RowKey rowKey) {
    if (e.op() == Op.DELETE) {
      return new Projected(e, rowKey, null, null, e.nextKey() == null ? null : keyOf(e.nextKey()));
    }
    // Looked up for every upsert, so that a schema's first upsert fills every cache: the fold
    // projects one upsert per schema first, then the rest on every core (BatchFolder.fold).
    int[] target = projections.computeIfAbsent(e.schema(), this::projection);
    int[] defaultedPositions = defaulted.computeIfAbsent(e.schema(), this::defaultedColumns);
    Object[] values = e.values();
    Object[] row = new Object[columns.size()]; // columns the event lacks (dropped at the source) are null
    for (int i = 0; i < values.length; i++) {
      Object v = values[i];
      int pos = target[i];
      row[pos] = v == Unchanged.VALUE ? v : ValueCoercion.coerce(v, columns.get(pos).type());
    }
    for (int i = 0; i < keyPositions.length; i++) {
      row[keyPositions[i]] = rowKey.get(i);
    }
    if (lsnPosition >= 0) {
      row[lsnPosition] = e.lsn();
    }
    if (e.lsnOrNone() != ChangeEvent.NO_LSN) {
      // An event from before the source added a column with a default: at the source its row
      // holds that default now (PostgreSQL fills existing rows), though the event cannot say so.
      for (int pos : defaultedPositions) {
        if (e.lsnOrNone() < addedBeforeLsn[pos]) {
          row[pos] = addedDefaults[pos];
        }
      }
    }
    return new Projected(e, rowKey, row, e.previousKey() == null ? null : keyOf(e.previousKey()));
  }

  /**
   * Whether the upserts of an event schema are projected onto the table without a copy of their
   * values (see {@link #project}); read after an event of the schema was projected. A batch holds
   * every event it decoded until it commits: a row copied per event is one more array per event
   * for the collector to copy and mark.
   */
  public boolean projectsAsItIs(EventSchema event) {
    return event == null || asItIs.getOrDefault(event, false);
  }

  /**
   * Whether a row of an as-it-is schema projects to its own values: each already of its column's
   * type (as coercing it would leave it) and its key columns equal to the event's key, as the
   * general projection would make them.
   */
  private boolean fitsAsItIs(Object[] values, RowKey key) {
    for (int i = 0; i < values.length; i++) {
      Object v = values[i];
      if (v != null && v != Unchanged.VALUE && ValueCoercion.coerce(v, columns.get(i).type()) != v) {
        return false;
      }
    }
    for (int i = 0; i < keyPositions.length; i++) {
      if (!java.util.Objects.equals(values[keyPositions[i]], key.get(i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether an event schema's values are the table's row as they are: every column of the table, in
   * its order, nothing for the projection to add (no LSN column; no column added with a default
   * that the event lacks, as it lacks none).
   */
  private boolean valuesAreRows(EventSchema event) {
    int[] target = projections.computeIfAbsent(event, this::projection);
    if (lsnPosition >= 0 || target.length != columns.size()) {
      return false;
    }
    for (int i = 0; i < target.length; i++) {
      if (target[i] != i) {
        return false;
      }
    }
    return true;
  }

  /** An event's key, in key order and column types; a key held as one column is read without a map. */
  public RowKey keyOf(ChangeEvent e) {
    if (e.keyColumn() != null && keyNames.length == 1 && keyNames[0].equals(e.keyColumn())) {
      return new RowKey(new Object[] {ValueCoercion.coerce(e.keyValue(), columns.get(keyPositions[0]).type())});
    }
    return keyOf(e.key());
  }

  /** A key given by column name, in key order and column types. */
  public RowKey keyOf(Map<String, Object> byName) {
    Object[] key = new Object[keyNames.length];
    for (int i = 0; i < keyNames.length; i++) {
      Object v = byName.get(keyNames[i]);
      if (v == null) {
        throw new IllegalArgumentException("key has no value for key column '" + keyNames[i] + "' (key: " + byName.keySet() + ")");
      }
      key[i] = ValueCoercion.coerce(v, columns.get(keyPositions[i]).type());
    }
    return new RowKey(key);
  }

  private int[] projection(EventSchema event) {
    int[] target = new int[event.fields().size()];
    for (int i = 0; i < target.length; i++) {
      EventField f = event.fields().get(i);
      int pos = position(f.name());
      if (pos < 0) {
        throw new IllegalArgumentException("column '" + f.name() + "' is not in the table");
      }
      Type have = columns.get(pos).type();
      if (!SchemaPlanner.sameType(have, f.type()) && !SchemaPlanner.narrowerThan(f.type(), have)) {
        throw new IllegalArgumentException("column '" + f.name() + "' is " + f.type() + " in the event but " + have + " in the table");
      }
      target[i] = pos;
    }
    return target;
  }

  private int[] defaultedColumns(EventSchema event) {
    return java.util.stream.IntStream.range(0, columns.size())
        .filter(i -> addedDefaults[i] != null && event.field(columns.get(i).name()) == null)
        .toArray();
  }

  /** The key of a stored row. */
  public RowKey keyOf(Record stored) {
    Object[] key = new Object[keyNames.length];
    for (int i = 0; i < key.length; i++) {
      key[i] = ValueCoercion.coerce(stored.getField(keyNames[i]), columns.get(keyPositions[i]).type());
    }
    return new RowKey(key);
  }

  /** The key of a row in table column order, coerced to the key columns' types as {@link #keyOf(Record)} reads a stored one. */
  public RowKey keyOfStoredRow(Object[] row) {
    Object[] key = new Object[keyPositions.length];
    for (int i = 0; i < key.length; i++) {
      key[i] = ValueCoercion.coerce(row[keyPositions[i]], columns.get(keyPositions[i]).type());
    }
    return new RowKey(key);
  }

  /** The key of a row in table column order. */
  public RowKey keyOfRow(Object[] row) {
    Object[] key = new Object[keyPositions.length];
    for (int i = 0; i < key.length; i++) {
      key[i] = row[keyPositions[i]];
    }
    return new RowKey(key);
  }

  /** A row holding only the key's values (enough to delete it from an unpartitioned table). */
  public Object[] keyRow(RowKey key) {
    Object[] row = new Object[columns.size()];
    for (int i = 0; i < keyPositions.length; i++) {
      row[keyPositions[i]] = key.get(i);
    }
    return row;
  }

  /**
   * A stored row's values in column order. The row may have been read with an older schema (a
   * snapshot's own): columns added since are null, widened columns are widened.
   */
  public Object[] valuesOf(Record stored) {
    Object[] out = new Object[columns.size()];
    Types.StructType struct = stored.struct();
    for (int i = 0; i < out.length; i++) {
      Types.NestedField column = columns.get(i);
      if (struct.field(column.name()) != null) {
        out[i] = ValueCoercion.coerce(stored.getField(column.name()), column.type());
      }
    }
    return out;
  }

  /** A row as an Iceberg record of the table schema. */
  public Record toRecord(Object[] row) {
    return fill(emptyRecord.copy(), row);
  }

  /** A record of the schema to {@link #fill} again and again, for a writer that takes each row as it comes. */
  public GenericRecord reusableRecord() {
    return emptyRecord.copy();
  }

  /** {@code into} holding the row's values (and null in any column past the row's end). */
  public Record fill(GenericRecord into, Object[] row) {
    int n = columns.size();
    for (int i = 0; i < n; i++) {
      into.set(i, i < row.length ? row[i] : null);
    }
    return into;
  }

  private int position(String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }
}
