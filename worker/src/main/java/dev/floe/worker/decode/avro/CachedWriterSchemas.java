package dev.floe.worker.decode.avro;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.avro.Schema;

/**
 * Asks the registry for each writer schema once: a schema id names immutable content, so what was
 * fetched is kept for good. An id the registry does not know is remembered for a while, so a burst
 * of records naming it costs one request, yet a schema registered late is still found. A registry
 * found unavailable is not asked again for a moment: every polled record would otherwise wait out
 * its own timeout (the runner decodes ahead as it polls), and a hung registry would stall polling.
 */
public final class CachedWriterSchemas implements WriterSchemas {
  private static final Duration FORGET_UNKNOWN = Duration.ofSeconds(30);
  private static final Duration OUTAGE_PAUSE = Duration.ofSeconds(2);

  private final WriterSchemas registry;
  private final LongSupplier nanoTime;
  private final Map<SchemaId, Schema> known = new ConcurrentHashMap<>();
  private final Map<SchemaId, Unknown> unknown = new ConcurrentHashMap<>();

  private record Unknown(String reason, long atNanos) {}

  /** The last outage seen, and when; null while the registry answers. */
  private volatile Outage outage;

  private record Outage(SchemaRegistryUnavailableException cause, long atNanos) {}

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
    Outage down = outage;
    if (down != null && nanoTime.getAsLong() - down.atNanos() < OUTAGE_PAUSE.toNanos()) {
      throw new SchemaRegistryUnavailableException("the schema registry was unavailable moments ago; not asked again yet for "
          + id + ": " + down.cause().getMessage(), down.cause());
    }
    try {
      schema = registry.writerSchema(id);
    } catch (UnknownSchemaException e) {
      unknown.put(id, new Unknown(e.getMessage(), nanoTime.getAsLong()));
      throw e;
    } catch (SchemaRegistryUnavailableException e) {
      outage = new Outage(e, nanoTime.getAsLong());
      throw e;
    }
    outage = null;
    unknown.remove(id);
    known.put(id, schema);
    return schema;
  }
}
