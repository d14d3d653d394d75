package dev.floe.worker.decode.avro;

/** The registry has no Avro schema of the id a record names (a 404, or a schema that is not Avro): that record cannot be read. */
public final class UnknownSchemaException extends RuntimeException {
  public UnknownSchemaException(String message) {
    super(message, null, false, false);
  }
}
