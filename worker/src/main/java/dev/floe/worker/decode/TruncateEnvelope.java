package dev.floe.worker.decode;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.worker.decode.DebeziumDecoder.DecodeException;

/**
 * Checks that an {@code op: t} record is a truncate as Debezium writes one before it is allowed to
 * empty a table: a bare {@code {"op":"t"}} once removed every row and nothing said why. A truncate
 * must carry a {@code source} block naming its connector and table, no row images, and when it
 * comes from PostgreSQL the {@code source.lsn} that orders it against the other partitions. The
 * check reads {@link Facts}, so JSON and Avro envelopes are judged by the same rules.
 */
final class TruncateEnvelope {
  private static final String POSTGRESQL = "postgresql";

  private TruncateEnvelope() {}

  /**
   * What a truncate's envelope says, whatever its wire format.
   *
   * @param hasSource whether it has a source block
   * @param connector the source's non-blank connector name, else null
   * @param table the source's non-blank table name, else null
   * @param rowImage the name of a row image it carries ("before", "after"), else null
   * @param lsn the source's integral LSN that fits a long, else null
   */
  record Facts(boolean hasSource, String connector, String table, String rowImage, Long lsn) {}

  /** The truncate's LSN (null for sources without one); a {@link DecodeException} when it does not prove it is a truncate. */
  static Long verifiedLsn(JsonNode payload) {
    return verifiedLsn(facts(payload));
  }

  /** The truncate's LSN (null for sources without one); a {@link DecodeException} when the facts do not prove it is a truncate. */
  static Long verifiedLsn(Facts f) {
    if (!f.hasSource()) {
      throw new DecodeException("truncate (op 't') without a 'source' block naming its connector and table: not taken as a truncate");
    }
    if (f.connector() == null) {
      throw new DecodeException("truncate (op 't') whose source block names no connector: not taken as a truncate");
    }
    if (f.table() == null) {
      throw new DecodeException("truncate (op 't') whose source block names no table: not taken as a truncate");
    }
    if (f.rowImage() != null) {
      throw new DecodeException("truncate (op 't') carrying a row image in '" + f.rowImage() + "': Debezium's truncates carry none");
    }
    if (f.connector().equals(POSTGRESQL) && f.lsn() == null) {
      throw new DecodeException("PostgreSQL truncate (op 't') without an integral source.lsn: it cannot be ordered against other partitions");
    }
    return f.lsn();
  }

  private static Facts facts(JsonNode payload) {
    JsonNode source = payload.get("source");
    if (source == null || !source.isObject()) {
      return new Facts(false, null, null, null, null);
    }
    String image = null;
    for (String name : new String[] {"before", "after"}) {
      JsonNode row = payload.get(name);
      if (image == null && row != null && !row.isNull()) {
        image = name;
      }
    }
    JsonNode lsn = source.get("lsn");
    boolean hasLsn = lsn != null && lsn.isIntegralNumber() && lsn.canConvertToLong();
    return new Facts(true, text(source, "connector"), text(source, "table"), image, hasLsn ? lsn.longValue() : null);
  }

  /** Text as a truncate's check takes it: non-blank, else null. */
  static String nonBlank(String value) {
    return value != null && !value.isBlank() ? value : null;
  }

  private static String text(JsonNode source, String field) {
    JsonNode v = source.get(field);
    return v != null && v.isTextual() ? nonBlank(v.textValue()) : null;
  }
}
