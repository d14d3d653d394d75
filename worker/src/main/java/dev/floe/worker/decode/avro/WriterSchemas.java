package dev.floe.worker.decode.avro;

import org.apache.avro.Schema;

/** Where the Avro writer schema a record's id names comes from: a schema registry, or (in tests) a map. */
public interface WriterSchemas {
  /**
   * The writer schema of this id.
   *
   * @throws UnknownSchemaException when the registry has no such schema, or it is not Avro: the
   *     record cannot be read (it is dead-lettered)
   * @throws SchemaRegistryUnavailableException when the registry cannot be asked now (down, 5xx,
   *     a timeout): an outage, retried
   * @throws SchemaRegistryRefusedException when the registry refuses us (401, 403): retrying will
   *     not change that
   */
  Schema writerSchema(SchemaId id);
}
