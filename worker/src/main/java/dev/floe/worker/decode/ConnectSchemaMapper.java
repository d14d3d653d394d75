package dev.floe.worker.decode;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Maps a Kafka Connect JSON schema (JsonConverter with {@code schemas.enable=true}) to Iceberg
 * types and value readers, following Debezium's logical type names.
 */
public final class ConnectSchemaMapper {
  static final String DECIMAL = "org.apache.kafka.connect.data.Decimal";
  private static final int MAX_DECIMAL_PRECISION = 38;

  private ConnectSchemaMapper() {}

  /** A column's Iceberg type and reader. */
  public record Mapped(Type type, ValueCodec codec) {}

  /** The row schema of a struct schema node (the {@code after} or {@code before} field). */
  public static EventSchema rowSchema(JsonNode structSchema) {
    JsonNode fields = structSchema.get("fields");
    if (fields == null || !fields.isArray()) {
      throw new IllegalArgumentException("row schema has no fields: " + structSchema);
    }
    List<EventField> out = new ArrayList<>();
    int[] nestedIds = {1000}; // placeholders: the catalog assigns real ids when columns are added
    for (JsonNode f : fields) {
      Mapped m = map(f, nestedIds);
      out.add(new EventField(f.path("field").asText(), m.type(), f.path("optional").asBoolean(true), m.codec(), defaultOf(f, m)));
    }
    return new EventSchema(out);
  }

  /**
   * The field's schema default, read with the field's own codec so that a decimal, date or
   * timestamp default is exactly what a value would be. JsonConverter writes it in the value's
   * encoding.
   */
  static Object defaultOf(JsonNode field, Mapped mapped) {
    JsonNode d = field.get("default");
    if (d == null || d.isNull()) {
      return null;
    }
    try {
      return mapped.codec().decode(d);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("default " + d + " of column '" + field.path("field").asText() + "' does not fit its type: " + e.getMessage(), e);
    }
  }

  static Mapped map(JsonNode schema, int[] ids) {
    String type = schema.path("type").asText();
    String name = schema.path("name").asText("");
    switch (name) {
      case DECIMAL -> {
        int scale = Integer.parseInt(schema.path("parameters").path("scale").asText("0"));
        int precision = Integer.parseInt(schema.path("parameters").path("connect.decimal.precision").asText("38"));
        if (precision > MAX_DECIMAL_PRECISION || precision < scale) {
          ValueCodec exact = ValueCodecs.decimalBytes(scale);
          return new Mapped(Types.StringType.get(), n -> ((java.math.BigDecimal) exact.decode(n)).toPlainString());
        }
        return new Mapped(Types.DecimalType.of(precision, scale), ValueCodecs.decimalBytes(precision, scale));
      }
      case "io.debezium.data.VariableScaleDecimal" -> {
        return new Mapped(Types.StringType.get(), ValueCodecs.VARIABLE_SCALE_DECIMAL_TEXT);
      }
      case "io.debezium.time.Date", "org.apache.kafka.connect.data.Date" -> {
        return new Mapped(Types.DateType.get(), ValueCodecs.EPOCH_DAYS);
      }
      case "io.debezium.time.Time", "org.apache.kafka.connect.data.Time" -> {
        return new Mapped(Types.TimeType.get(), ValueCodecs.TIME_MILLIS);
      }
      case "io.debezium.time.MicroTime" -> {
        return new Mapped(Types.TimeType.get(), ValueCodecs.TIME_MICROS);
      }
      case "io.debezium.time.NanoTime" -> {
        return new Mapped(Types.TimeType.get(), ValueCodecs.TIME_NANOS);
      }
      case "io.debezium.time.Timestamp", "org.apache.kafka.connect.data.Timestamp" -> {
        return new Mapped(Types.TimestampType.withoutZone(), ValueCodecs.TIMESTAMP_MILLIS);
      }
      case "io.debezium.time.MicroTimestamp" -> {
        return new Mapped(Types.TimestampType.withoutZone(), ValueCodecs.TIMESTAMP_MICROS);
      }
      case "io.debezium.time.NanoTimestamp" -> {
        return new Mapped(Types.TimestampType.withoutZone(), ValueCodecs.TIMESTAMP_NANOS);
      }
      case "io.debezium.time.ZonedTimestamp" -> {
        return new Mapped(Types.TimestampType.withZone(), ValueCodecs.ZONED_TIMESTAMP);
      }
      case "io.debezium.data.Uuid" -> {
        return new Mapped(Types.UUIDType.get(), ValueCodecs.UUID_TEXT);
      }
      default -> {
        // Json, Enum, EnumSet, Xml, ZonedTime, Interval... fall through to their base type.
      }
    }
    return switch (type) {
      case "int8", "int16", "int32" -> new Mapped(Types.IntegerType.get(), ValueCodecs.INT);
      case "int64" -> new Mapped(Types.LongType.get(), ValueCodecs.LONG);
      case "float32", "float" -> new Mapped(Types.FloatType.get(), ValueCodecs.FLOAT);
      case "float64", "double" -> new Mapped(Types.DoubleType.get(), ValueCodecs.DOUBLE);
      case "boolean" -> new Mapped(Types.BooleanType.get(), ValueCodecs.BOOLEAN);
      case "string" -> new Mapped(Types.StringType.get(), ValueCodecs.STRING);
      case "bytes" -> new Mapped(Types.BinaryType.get(), ValueCodecs.BINARY);
      case "array" -> {
        Mapped element = map(schema.path("items"), ids);
        yield new Mapped(Types.ListType.ofOptional(ids[0]++, element.type()), ValueCodecs.list(element.codec()));
      }
      // Structs and maps (geometries, custom types) are kept whole as their JSON text.
      case "struct", "map" -> new Mapped(Types.StringType.get(), ValueCodecs.STRING);
      default -> throw new IllegalArgumentException("unsupported Connect type '" + type + "' " + name);
    };
  }
}
