package dev.floe.worker.apply;

import dev.floe.worker.decode.ChangeEvent;
import dev.floe.worker.decode.Decoded;
import dev.floe.worker.decode.EventField;
import dev.floe.worker.decode.EventSchema;
import dev.floe.worker.decode.PackedChange;
import dev.floe.worker.fold.MergeRule;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.types.Type;

/**
 * Packs the decoded events of one table layout ({@link PackedChange}) where the batch they wait in
 * will be applied by {@link PackedResolver}: a table written by position, unpartitioned, keyed by one
 * long, int or uuid column, whose merge rules the packed resolver combines ({@code last} anywhere;
 * {@code last-non-null} and {@code first} on a column the index's merge state holds; {@code sum},
 * {@code min} and {@code max} on a long or int column it holds), and events whose schema is the
 * table's columns in order (the {@value TableLayout#LSN_COLUMN} column aside). Any other event stays
 * as it was decoded. Thread-safe: the decoding thread packs while the applying thread reads.
 */
public final class EventPacker {
  private final TableLayout layout;
  private final PackedChange.Slots slots;
  private final List<Type> types;
  private final List<String> names;
  private final int lsnPosition;
  /** Per event schema: whether its events pack (its fields are the table's columns, of the same types, in order). */
  private final ConcurrentHashMap<EventSchema, Boolean> fits = new ConcurrentHashMap<>();
  /** The schema last found to fit: events come in long runs of one schema, so most are told by one comparison. */
  private volatile EventSchema lastFitting;

  private EventPacker(TableLayout layout, List<Type> types, List<String> names) {
    this.layout = layout;
    this.types = types;
    this.names = names;
    this.lsnPosition = layout.lsnPosition();
    this.slots = PackedChange.Slots.of(types, layout.keyPosition(0), layout.keyNames()[0]);
  }

  /**
   * The packer of a layout, or null when its batches take the general path (see the class).
   *
   * @param mergeStateFromIndex whether stored values come from the index's merge state (else no
   *     rule but {@code last} is packed: the general path reads them)
   */
  public static EventPacker of(TableLayout layout, boolean positionDeletes, boolean mergeStateFromIndex) {
    if (!positionDeletes || layout.partitioned() || layout.keyNames().length != 1) {
      return null;
    }
    int width = layout.columnCount() - (layout.lsnPosition() >= 0 ? 1 : 0);
    if (width > 64 || (layout.lsnPosition() >= 0 && layout.lsnPosition() != width)) {
      return null;
    }
    Type.TypeID key = layout.column(layout.keyPosition(0)).type().typeId();
    if (key != Type.TypeID.LONG && key != Type.TypeID.INTEGER && key != Type.TypeID.UUID) {
      return null;
    }
    MergeState held = MergeState.forLayout(layout);
    for (int i = 0; i < width; i++) {
      if (!packs(layout.rules()[i], layout.column(i).type(), i == layout.keyPosition(0), mergeStateFromIndex && held.holdsColumn(layout, i))) {
        return null;
      }
    }
    List<Type> types = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < width; i++) {
      types.add(layout.column(i).type());
      names.add(layout.column(i).name());
    }
    return new EventPacker(layout, types, names);
  }

  /** Whether the packed resolver combines a column's rule: a rule that reads the stored value needs it held by the merge state. */
  static boolean packs(MergeRule rule, Type type, boolean key, boolean heldByMergeState) {
    if (rule == MergeRule.LAST || key) {
      return true;
    }
    if (!heldByMergeState) {
      return false;
    }
    return switch (rule) {
      case LAST_NON_NULL, FIRST -> true;
      case SUM, MIN, MAX -> type.typeId() == Type.TypeID.LONG || type.typeId() == Type.TypeID.INTEGER;
      default -> false;
    };
  }

  /** The layout whose events this packs. */
  public TableLayout layout() {
    return layout;
  }

  /** The plan its packed events carry: a batch is applied packed only when each of its events carries this one. */
  public PackedChange.Slots slots() {
    return slots;
  }

  /** The event packed when it is of the packed shape; else {@code decoded} as it is. */
  public Decoded pack(Decoded decoded) {
    if (!(decoded instanceof ChangeEvent e) || e.schema() == null) {
      return decoded;
    }
    EventSchema schema = e.schema();
    if (schema != lastFitting) {
      if (!fits.computeIfAbsent(schema, this::fits)) {
        return decoded;
      }
      lastFitting = schema;
    }
    PackedChange p = slots.pack(e);
    return p == null ? decoded : p;
  }

  /**
   * The event's row in table column order, as the table's writer takes it ({@link
   * PackedChange#valueToWrite}: values as {@link TableLayout#project} makes them, strings held as
   * bytes as Avro's {@code Utf8}): made again on each call.
   */
  public Object[] row(PackedChange p) {
    Object[] row = new Object[layout.columnCount()];
    for (int i = 0; i < slots.width(); i++) {
      row[i] = p.valueToWrite(i);
    }
    if (lsnPosition >= 0 && p.lsnOrNone() != ChangeEvent.NO_LSN) {
      row[lsnPosition] = p.lsnOrNone();
    }
    return row;
  }

  /** The key's value as the table's key column holds it (a {@code Long}, an {@code Integer} or, from both halves, a {@code UUID}). */
  public Object keyObject(long key, long keyLow) {
    return switch (types.get(layout.keyPosition(0)).typeId()) {
      case INTEGER -> (int) key;
      case UUID -> new java.util.UUID(key, keyLow);
      default -> key;
    };
  }

  private boolean fits(EventSchema schema) {
    List<EventField> fields = schema.fields();
    if (fields.size() != types.size()) {
      return false;
    }
    for (int i = 0; i < fields.size(); i++) {
      if (!fields.get(i).name().equals(names.get(i)) || !SchemaPlanner.sameType(types.get(i), fields.get(i).type())) {
        return false;
      }
    }
    return true;
  }
}
