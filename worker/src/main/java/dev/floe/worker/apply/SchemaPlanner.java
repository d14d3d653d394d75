package dev.floe.worker.apply;

import dev.floe.worker.decode.EventField;
import dev.floe.worker.decode.EventSchema;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Decides how a table follows a source schema: new columns are added as optional (with the source
 * column's default, which the rows already there hold), safe widenings (int→long, float→double,
 * decimal precision) are applied, columns the source dropped stay. Anything else is incompatible. A
 * pure function of the two schemas. A default of a column the table already has changes nothing: in
 * PostgreSQL {@code SET DEFAULT} does not touch existing rows either.
 */
public final class SchemaPlanner {
  private SchemaPlanner() {}

  /**
   * The changes to make; empty when the table already fits. {@code defaults} holds, by column name,
   * the default of each added column that has one (as a generic value of the column's type).
   */
  public record Plan(List<Types.NestedField> additions, List<Types.NestedField> widenings, Map<String, Object> defaults) {
    public Plan {
      additions = List.copyOf(additions);
      widenings = List.copyOf(widenings);
      defaults = Collections.unmodifiableMap(new LinkedHashMap<>(defaults));
    }

    /** The default of an added column, or null. */
    public Object defaultOf(String column) {
      return defaults.get(column);
    }

    public boolean isEmpty() {
      return additions.isEmpty() && widenings.isEmpty();
    }
  }

  /** @throws IllegalArgumentException with the reason, when the change is incompatible */
  public static Plan plan(Schema table, EventSchema event) {
    List<Types.NestedField> additions = new ArrayList<>();
    List<Types.NestedField> widenings = new ArrayList<>();
    Map<String, Object> defaults = new LinkedHashMap<>();
    for (EventField f : event.fields()) {
      Types.NestedField column = table.findField(f.name());
      if (column == null) {
        additions.add(Types.NestedField.optional(-1, f.name(), f.type()));
        if (f.defaultValue() != null) {
          defaults.put(f.name(), f.defaultValue());
        }
        continue;
      }
      Type have = column.type();
      Type want = f.type();
      if (sameType(have, want) || narrowerThan(want, have)) {
        continue;
      }
      if (narrowerThan(have, want)) {
        widenings.add(Types.NestedField.optional(column.fieldId(), f.name(), want));
        continue;
      }
      throw new IllegalArgumentException("column '" + f.name() + "' changed type from " + have + " to " + want + ", which the table cannot follow without loss");
    }
    return new Plan(additions, widenings, defaults);
  }

  static boolean sameType(Type a, Type b) {
    // Nested types carry field ids that differ between schemas; their text does not.
    return a.isPrimitiveType() && b.isPrimitiveType() ? a.equals(b) : a.toString().equals(b.toString());
  }

  /** True when values of {@code a} fit {@code b} exactly. */
  static boolean narrowerThan(Type a, Type b) {
    return a.isPrimitiveType() && b.isPrimitiveType() && TypeUtil.isPromotionAllowed(a, b.asPrimitiveType());
  }
}
