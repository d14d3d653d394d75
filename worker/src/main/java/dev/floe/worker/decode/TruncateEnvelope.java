package dev.floe.worker.decode;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.worker.decode.DebeziumDecoder.DecodeException;

/**
 * Checks that an {@code op: t} record is a truncate as Debezium writes one before it is allowed to
 * empty a table: a bare {@code {"op":"t"}} once removed every row and nothing said why. A truncate
 * must carry a {@code source} block naming its connector and table, no row images, and when it
 * comes from PostgreSQL the {@code source.lsn} that orders it against the other partitions.
 */
final class TruncateEnvelope {
  private static final String POSTGRESQL = "postgresql";

  private TruncateEnvelope() {}

  /** The truncate's LSN (null for sources without one); a {@link DecodeException} when it does not prove it is a truncate. */
  static Long verifiedLsn(JsonNode payload) {
    JsonNode source = payload.get("source");
    if (source == null || !source.isObject()) {
      throw new DecodeException("truncate (op 't') without a 'source' block naming its connector and table: not taken as a truncate");
    }
    String connector = text(source, "connector");
    if (connector == null) {
      throw new DecodeException("truncate (op 't') whose source block names no connector: not taken as a truncate");
    }
    if (text(source, "table") == null) {
      throw new DecodeException("truncate (op 't') whose source block names no table: not taken as a truncate");
    }
    for (String image : new String[] {"before", "after"}) {
      JsonNode row = payload.get(image);
      if (row != null && !row.isNull()) {
        throw new DecodeException("truncate (op 't') carrying a row image in '" + image + "': Debezium's truncates carry none");
      }
    }
    JsonNode lsn = source.get("lsn");
    boolean hasLsn = lsn != null && lsn.isIntegralNumber() && lsn.canConvertToLong();
    if (connector.equals(POSTGRESQL) && !hasLsn) {
      throw new DecodeException("PostgreSQL truncate (op 't') without an integral source.lsn: it cannot be ordered against other partitions");
    }
    return hasLsn ? lsn.longValue() : null;
  }

  private static String text(JsonNode source, String field) {
    JsonNode v = source.get(field);
    return v != null && v.isTextual() && !v.textValue().isBlank() ? v.textValue() : null;
  }
}
