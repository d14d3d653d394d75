package dev.floe.worker.decode.avro;

/**
 * The schema registry refuses this worker (401, 403), or what answers is not a registry: retrying
 * will not change that, so the worker stops with the reason instead of dead-lettering every record.
 */
public final class SchemaRegistryRefusedException extends RuntimeException {
  public SchemaRegistryRefusedException(String message) {
    super(message);
  }
}
