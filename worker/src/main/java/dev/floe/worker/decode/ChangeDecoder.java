package dev.floe.worker.decode;

import org.apache.iceberg.Schema;

/**
 * Turns one Kafka record into a change event, a skip or a rejection: one contract for every wire
 * format (JsonConverter JSON, Avro with a schema registry), so that the engine never asks which.
 * A record that cannot be read becomes {@link Decoded.Rejected} with a bounded reason; only a
 * service the decoder depends on being out (a schema registry) throws, and that is retried.
 */
public interface ChangeDecoder {
  /**
   * Decodes one record.
   *
   * @param tableSchema the target table's schema, or null if the table does not exist yet
   */
  Decoded decode(RawRecord record, Schema tableSchema);
}
