package dev.floe.worker.decode.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;

/**
 * An Avro datum (as Avro's generic reader gives it) in the JSON JsonConverter writes for the same
 * Connect value: numbers as numbers, text as text, bytes (decimals too) as base64, structs as
 * objects in field order, arrays as arrays. The JSON decoder's value readers then read it, so a
 * column means the same whichever wire format carried it.
 */
public final class AvroJson {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private AvroJson() {}

  public static JsonNode of(Schema schema, Object datum) {
    if (datum == null) {
      return F.nullNode();
    }
    return switch (schema.getType()) {
      case UNION -> of(schema.getTypes().get(GenericData.get().resolveUnion(schema, datum)), datum);
      case INT -> F.numberNode((Integer) datum);
      case LONG -> F.numberNode((Long) datum);
      case FLOAT -> F.numberNode((Float) datum);
      case DOUBLE -> F.numberNode((Double) datum);
      case BOOLEAN -> F.booleanNode((Boolean) datum);
      case STRING, ENUM -> F.textNode(datum.toString());
      case BYTES -> F.textNode(Base64.getEncoder().encodeToString(bytes((ByteBuffer) datum)));
      case FIXED -> F.textNode(Base64.getEncoder().encodeToString(((GenericFixed) datum).bytes()));
      case RECORD -> {
        ObjectNode o = F.objectNode();
        IndexedRecord r = (IndexedRecord) datum;
        for (Schema.Field f : schema.getFields()) {
          o.set(f.name(), of(f.schema(), r.get(f.pos())));
        }
        yield o;
      }
      case ARRAY -> {
        ArrayNode a = F.arrayNode();
        for (Object e : (Collection<?>) datum) {
          a.add(of(schema.getElementType(), e));
        }
        yield a;
      }
      case MAP -> {
        ObjectNode o = F.objectNode();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) datum).entrySet()) {
          o.set(e.getKey().toString(), of(schema.getValueType(), e.getValue()));
        }
        yield o;
      }
      case NULL -> F.nullNode();
    };
  }

  /** The remaining bytes of a buffer, copied (the reader may reuse the buffer for the next record). */
  public static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
