package dev.floe.worker.quickstart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.floe.worker.fold.Unchanged;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.Base64;
import java.util.function.Function;
import org.apache.iceberg.util.DateTimeUtil;

/** A source column as Kafka Connect's JsonConverter describes it, with the encoder of its values. */
public record ConnectColumn(
    String name, String type, String logicalName, ObjectNode parameters, boolean optional, Function<Object, JsonNode> encoder) {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  public static ConnectColumn int32(String name) {
    return new ConnectColumn(name, "int32", null, null, true, v -> F.numberNode((Integer) v));
  }

  public static ConnectColumn int64(String name) {
    return new ConnectColumn(name, "int64", null, null, true, v -> F.numberNode(((Number) v).longValue()));
  }

  public static ConnectColumn string(String name) {
    return new ConnectColumn(name, "string", null, null, true, v -> F.textNode((String) v));
  }

  public static ConnectColumn decimal(String name, int precision, int scale) {
    ObjectNode params = F.objectNode().put("scale", String.valueOf(scale)).put("connect.decimal.precision", String.valueOf(precision));
    return new ConnectColumn(name, "bytes", "org.apache.kafka.connect.data.Decimal", params, true,
        v -> F.textNode(Base64.getEncoder().encodeToString(((BigDecimal) v).setScale(scale).unscaledValue().toByteArray())));
  }

  public static ConnectColumn microTimestamp(String name) {
    return new ConnectColumn(name, "int64", "io.debezium.time.MicroTimestamp", null, true,
        v -> F.numberNode(DateTimeUtil.microsFromTimestamp((LocalDateTime) v)));
  }

  public static ConnectColumn uuid(String name) {
    return new ConnectColumn(name, "string", "io.debezium.data.Uuid", null, true, v -> F.textNode(v.toString()));
  }

  public ConnectColumn required() {
    return new ConnectColumn(name, type, logicalName, parameters, false, encoder);
  }

  /** This column's entry in a struct schema. */
  public ObjectNode schema() {
    ObjectNode n = F.objectNode().put("type", type).put("optional", optional);
    if (logicalName != null) {
      n.put("name", logicalName).put("version", 1);
    }
    if (parameters != null) {
      n.set("parameters", parameters);
    }
    n.put("field", name);
    return n;
  }

  /** A value as JSON; {@link Unchanged#VALUE} becomes Debezium's TOAST placeholder. */
  public JsonNode encode(Object value) {
    if (value == null) {
      return F.nullNode();
    }
    if (value == Unchanged.VALUE) {
      return F.textNode(Unchanged.DEBEZIUM_PLACEHOLDER);
    }
    return encoder.apply(value);
  }
}
