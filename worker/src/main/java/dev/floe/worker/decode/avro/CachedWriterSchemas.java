package dev.floe.worker.decode.avro;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.avro.Schema;

/**
 * Asks the registry for each writer schema once: a schema id names immutable content, so what was
 * fetched is kept for good. An id the registry does not know is remembered for a while, so a burst
 * of records naming it costs one request, yet a schema registered late is still found.
 */
public final class CachedWriterSchemas implements WriterSchemas {
  private static final Duration FORGET_UNKNOWN = Duration.ofSeconds(30);

  private final WriterSchemas registry;
  private final LongSupplier nanoTime;
  private final Map<SchemaId, Schema> known = new ConcurrentHashMap<>();
  private final Map<SchemaId, Unknown> unknown = new ConcurrentHashMap<>();

  private record Unknown(String reason, long atNanos) {}

  public CachedWriterSchemas(WriterSchemas registry) {
    this(registry, System::nanoTime);
  }

  CachedWriterSchemas(WriterSchemas registry, LongSupplier nanoTime) {
    this.registry = registry;
    this.nanoTime = nanoTime;
  }

  @Override
  public Schema writerSchema(SchemaId id) {
    Schema schema = known.get(id);
    if (schema != null) {
      return schema;
    }
    Unknown miss = unknown.get(id);
    if (miss != null && nanoTime.getAsLong() - miss.atNanos() < FORGET_UNKNOWN.toNanos()) {
      throw new UnknownSchemaException(miss.reason());
    }
    try {
      schema = registry.writerSchema(id);
    } catch (UnknownSchemaException e) {
      unknown.put(id, new Unknown(e.getMessage(), nanoTime.getAsLong()));
      throw e;
    }
    unknown.remove(id);
    known.put(id, schema);
    return schema;
  }
}
