package dev.floe.worker.decode.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * Reads an Avro writer schema back into the Kafka Connect schema it was written from, in the JSON
 * form JsonConverter gives it ({@code type}, {@code optional}, {@code name}, {@code parameters},
 * {@code default}, {@code fields}, {@code items}): the form {@code ConnectSchemaMapper} maps, so
 * the Avro path and the JSON path share one mapping to Iceberg types. It undoes what Kafka
 * Connect's Avro converters (Apicurio's and Confluent's {@code AvroData}) write: {@code
 * connect.name}, {@code connect.parameters}, {@code connect.type} (int8, int16), {@code
 * connect.default}, optional fields as unions with null, decimals as bytes with a scale; Avro's
 * own logical types stand in for a missing {@code connect.name}.
 */
public final class ConnectSchemas {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  static final String CONNECT_NAME = "connect.name";
  static final String CONNECT_PARAMETERS = "connect.parameters";
  static final String CONNECT_TYPE = "connect.type";
  static final String CONNECT_DEFAULT = "connect.default";
  static final String CONNECT_VERSION = "connect.version";
  static final String DECIMAL = "org.apache.kafka.connect.data.Decimal";

  private ConnectSchemas() {}

  /** The Connect schema of an Avro schema (a union with null is an optional schema). */
  public static ObjectNode of(Schema avro) {
    boolean optional = false;
    Schema s = avro;
    if (s.getType() == Schema.Type.UNION) {
      Schema only = nonNullBranch(s);
      if (only != null) {
        optional = s.getTypes().size() > 1;
        s = only;
      }
    }
    ObjectNode node = F.objectNode();
    node.put("type", connectType(s));
    node.put("optional", optional);
    String name = name(s);
    if (name != null) {
      node.put("name", name);
    }
    Object version = s.getObjectProp(CONNECT_VERSION);
    if (version instanceof Number n) {
      node.put("version", n.intValue());
    }
    ObjectNode parameters = parameters(s, name);
    if (parameters != null) {
      node.set("parameters", parameters);
    }
    Object connectDefault = s.getObjectProp(CONNECT_DEFAULT);
    if (connectDefault != null && connectDefault != JsonProperties.NULL_VALUE) {
      node.set("default", value(s, connectDefault));
    }
    switch (s.getType()) {
      case RECORD -> {
        ArrayNode fields = node.putArray("fields");
        for (Schema.Field f : s.getFields()) {
          ObjectNode field = of(f.schema());
          field.put("field", f.name());
          if (f.hasDefaultValue() && f.defaultVal() != null && f.defaultVal() != JsonProperties.NULL_VALUE) {
            // the field's Avro default outranks connect.default, as in AvroData
            Schema branch = f.schema().getType() == Schema.Type.UNION ? f.schema().getTypes().get(0) : f.schema();
            field.set("default", value(branch, f.defaultVal()));
          }
          fields.add(field);
        }
      }
      case ARRAY -> node.set("items", of(s.getElementType()));
      case MAP -> {
        node.set("keys", F.objectNode().put("type", "string").put("optional", false));
        node.set("values", of(s.getValueType()));
      }
      default -> {
        // primitives are whole
      }
    }
    return node;
  }

  /** The single non-null branch of a union, or null when it has several (a real union). */
  static Schema nonNullBranch(Schema union) {
    Schema only = null;
    for (Schema t : union.getTypes()) {
      if (t.getType() != Schema.Type.NULL) {
        if (only != null) {
          return null;
        }
        only = t;
      }
    }
    return only;
  }

  private static String connectType(Schema s) {
    return switch (s.getType()) {
      case INT -> {
        Object t = s.getObjectProp(CONNECT_TYPE);
        yield "int8".equals(t) || "int16".equals(t) ? (String) t : "int32";
      }
      case LONG -> "int64";
      case FLOAT -> "float";
      case DOUBLE -> "double";
      case BOOLEAN -> "boolean";
      case STRING, ENUM -> "string";
      case BYTES, FIXED -> "bytes";
      case ARRAY -> "array";
      case MAP -> "map";
      case RECORD, UNION -> "struct"; // a real union is kept whole, as its JSON text
      case NULL -> "string";
    };
  }

  /** The Connect name: {@code connect.name}, else the Connect name of the Avro logical type, else a record's full name. */
  private static String name(Schema s) {
    Object connectName = s.getObjectProp(CONNECT_NAME);
    if (connectName instanceof String n) {
      return n;
    }
    LogicalType logical = s.getLogicalType();
    if (logical instanceof LogicalTypes.Decimal) {
      return DECIMAL;
    }
    if (logical != null) {
      switch (logical.getName()) {
        case "date":
          return "org.apache.kafka.connect.data.Date";
        case "time-millis":
          return "org.apache.kafka.connect.data.Time";
        case "time-micros":
          return "io.debezium.time.MicroTime";
        case "timestamp-millis":
          return "org.apache.kafka.connect.data.Timestamp";
        case "timestamp-micros":
          return "io.debezium.time.MicroTimestamp";
        case "timestamp-nanos":
          return "io.debezium.time.NanoTimestamp";
        case "uuid":
          return "io.debezium.data.Uuid";
        default:
      }
    }
    return s.getType() == Schema.Type.RECORD ? s.getFullName() : null;
  }

  /** {@code connect.parameters}; for an Avro decimal without them, its scale and precision as Connect names them. */
  private static ObjectNode parameters(Schema s, String name) {
    Object params = s.getObjectProp(CONNECT_PARAMETERS);
    ObjectNode out = null;
    if (params instanceof Map<?, ?> map) {
      out = F.objectNode();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        out.put(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
      }
    }
    if (DECIMAL.equals(name) && s.getLogicalType() instanceof LogicalTypes.Decimal d && (out == null || !out.has("scale"))) {
      out = out == null ? F.objectNode() : out;
      out.put("scale", String.valueOf(d.getScale()));
      out.put("connect.decimal.precision", String.valueOf(d.getPrecision()));
    }
    return out;
  }

  /**
   * A default as Avro's parser holds it (Integer, Long, Float, Double, Boolean, String, byte[] or
   * ISO-8859-1 text for bytes, Map, List) in the JSON encoding JsonConverter gives that value.
   */
  @SuppressWarnings("unchecked")
  static JsonNode value(Schema schema, Object v) {
    Schema s = schema;
    if (s.getType() == Schema.Type.UNION) {
      Schema only = nonNullBranch(s);
      s = only == null ? s.getTypes().get(0) : only;
    }
    if (v == null || v == JsonProperties.NULL_VALUE) {
      return F.nullNode();
    }
    return switch (s.getType()) {
      case BYTES, FIXED -> F.textNode(java.util.Base64.getEncoder().encodeToString(
          v instanceof byte[] b ? b : v.toString().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1)));
      case RECORD -> {
        ObjectNode o = F.objectNode();
        Map<String, Object> m = (Map<String, Object>) v;
        for (Schema.Field f : s.getFields()) {
          o.set(f.name(), value(f.schema(), m.get(f.name())));
        }
        yield o;
      }
      case ARRAY -> {
        ArrayNode a = F.arrayNode();
        for (Object e : (List<Object>) v) {
          a.add(value(s.getElementType(), e));
        }
        yield a;
      }
      case MAP -> {
        ObjectNode o = F.objectNode();
        Schema values = s.getValueType();
        ((Map<String, Object>) v).forEach((k, e) -> o.set(k, value(values, e)));
        yield o;
      }
      case INT -> F.numberNode(((Number) v).intValue());
      case LONG -> F.numberNode(((Number) v).longValue());
      case FLOAT -> F.numberNode(((Number) v).floatValue());
      case DOUBLE -> F.numberNode(((Number) v).doubleValue());
      case BOOLEAN -> F.booleanNode((Boolean) v);
      default -> F.textNode(v.toString());
    };
  }
}
