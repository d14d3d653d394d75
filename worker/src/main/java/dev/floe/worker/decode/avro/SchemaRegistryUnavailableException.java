package dev.floe.worker.decode.avro;

/**
 * The schema registry could not be asked for a writer schema (refused connection, timeout, a 5xx):
 * an outage, not a fault of the record. The runner retries the batch with backoff, reports the
 * worker not ready meanwhile, and dead-letters nothing.
 */
public final class SchemaRegistryUnavailableException extends RuntimeException {
  public SchemaRegistryUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
