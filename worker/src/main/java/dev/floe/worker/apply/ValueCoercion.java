package dev.floe.worker.apply;

import java.math.BigDecimal;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** Converts a decoded value to a (possibly widened) table column type; never loses precision. */
public final class ValueCoercion {
  private ValueCoercion() {}

  public static Object coerce(Object value, Type target) {
    if (value == null) {
      return null;
    }
    switch (target.typeId()) {
      case LONG -> {
        if (value instanceof Integer i) {
          return i.longValue();
        }
      }
      case DOUBLE -> {
        if (value instanceof Float f) {
          return f.doubleValue();
        }
      }
      case DECIMAL -> {
        if (value instanceof BigDecimal d) {
          int scale = ((Types.DecimalType) target).scale();
          return d.scale() == scale ? d : d.setScale(scale);
        }
      }
      default -> {}
    }
    return value;
  }
}
