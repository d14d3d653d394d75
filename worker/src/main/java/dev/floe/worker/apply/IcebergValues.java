package dev.floe.worker.apply;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * Converts between the generic values Floe's rows hold (Iceberg's generic data model: LocalDate,
 * LocalDateTime, ...) and Iceberg's internal representation (days, micros), which its JSON value
 * parser speaks.
 */
final class IcebergValues {
  private IcebergValues() {}

  static Object toInternal(Type type, Object v) {
    if (v == null) {
      return null;
    }
    return switch (type.typeId()) {
      case DATE -> v instanceof LocalDate d ? DateTimeUtil.daysFromDate(d) : v;
      case TIME -> v instanceof LocalTime t ? DateTimeUtil.microsFromTime(t) : v;
      case TIMESTAMP -> v instanceof LocalDateTime t ? DateTimeUtil.microsFromTimestamp(t)
          : v instanceof OffsetDateTime t ? DateTimeUtil.microsFromTimestamptz(t) : v;
      case LIST -> {
        List<Object> out = new ArrayList<>();
        Type element = type.asListType().elementType();
        ((List<?>) v).forEach(e -> out.add(toInternal(element, e)));
        yield out;
      }
      default -> v;
    };
  }

  static Object toGeneric(Type type, Object v) {
    if (v == null) {
      return null;
    }
    return switch (type.typeId()) {
      case DATE -> v instanceof Integer d ? DateTimeUtil.dateFromDays(d) : v;
      case TIME -> v instanceof Long t ? DateTimeUtil.timeFromMicros(t) : v;
      case TIMESTAMP -> v instanceof Long t
          ? (((org.apache.iceberg.types.Types.TimestampType) type).shouldAdjustToUTC()
              ? DateTimeUtil.timestamptzFromMicros(t) : DateTimeUtil.timestampFromMicros(t))
          : v;
      case STRING -> v instanceof CharSequence c ? c.toString() : v;
      case LIST -> {
        List<Object> out = new ArrayList<>();
        Type element = type.asListType().elementType();
        ((List<?>) v).forEach(e -> out.add(toGeneric(element, e)));
        yield out;
      }
      default -> v;
    };
  }
}
