package dev.floe.worker.apply;

import dev.floe.worker.decode.EventField;
import dev.floe.worker.decode.EventSchema;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Decides how a table follows a source schema: new columns are added as optional, safe widenings
 * (int→long, float→double, decimal precision) are applied, columns the source dropped stay. Anything
 * else is incompatible. A pure function of the two schemas.
 */
public final class SchemaPlanner {
  private SchemaPlanner() {}

  /** The changes to make; empty when the table already fits. */
  public record Plan(List<Types.NestedField> additions, List<Types.NestedField> widenings) {
    public boolean isEmpty() {
      return additions.isEmpty() && widenings.isEmpty();
    }
  }

  /** @throws IllegalArgumentException with the reason, when the change is incompatible */
  public static Plan plan(Schema table, EventSchema event) {
    List<Types.NestedField> additions = new ArrayList<>();
    List<Types.NestedField> widenings = new ArrayList<>();
    for (EventField f : event.fields()) {
      Types.NestedField column = table.findField(f.name());
      if (column == null) {
        additions.add(Types.NestedField.optional(-1, f.name(), f.type()));
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
    return new Plan(additions, widenings);
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
