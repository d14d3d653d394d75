package dev.floe.worker.decode.avro;

/**
 * Which writer schema a record names, and how: the 4-byte id of the Confluent wire format (which
 * the registry's Confluent-compatible API resolves: a content id on Apicurio 3), or the global or
 * content id Apicurio's serializers put in the record's headers.
 */
public record SchemaId(Kind kind, long id) {
  /** The kinds of schema id a record can carry. */
  public enum Kind {
    /** Magic byte 0 and a 4-byte id in front of the Avro bytes; resolved by {@code /apis/ccompat/v7/schemas/ids/{id}}. */
    CONFLUENT,
    /** Apicurio's {@code apicurio.*.globalId} header: one version of one artifact. */
    GLOBAL_ID,
    /** Apicurio's {@code apicurio.*.contentId} header: the schema text, whichever artifacts share it. */
    CONTENT_ID
  }

  public static SchemaId confluent(long id) {
    return new SchemaId(Kind.CONFLUENT, id);
  }

  public static SchemaId globalId(long id) {
    return new SchemaId(Kind.GLOBAL_ID, id);
  }

  public static SchemaId contentId(long id) {
    return new SchemaId(Kind.CONTENT_ID, id);
  }

  @Override
  public String toString() {
    return switch (kind) {
      case CONFLUENT -> "schema id " + id;
      case GLOBAL_ID -> "globalId " + id;
      case CONTENT_ID -> "contentId " + id;
    };
  }
}
