package dev.floe.worker.decode;

import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.decode.avro.CachedWriterSchemas;
import dev.floe.worker.decode.avro.RegistryWriterSchemas;
import dev.floe.worker.decode.avro.WriterSchemas;
import java.util.List;

/**
 * Makes the decoder of each table's engine, by the source's {@code format}: the one place that
 * knows which wire formats exist. The engines of one sink share a factory, so an Avro sink asks
 * its registry for each writer schema once, whichever table the schema's records go to.
 */
@FunctionalInterface
public interface ChangeDecoders {
  /** The decoder of a table keyed by {@code primaryKey} (from config; empty: the records' keys say). */
  ChangeDecoder forTable(List<String> primaryKey);

  /** JSON (JsonConverter), the default. */
  ChangeDecoders JSON = DebeziumDecoder::new;

  /** Avro whose writer schemas come from {@code schemas}. */
  static ChangeDecoders avro(WriterSchemas schemas) {
    return primaryKey -> new AvroChangeDecoder(primaryKey, schemas);
  }

  /** The decoders of a source's format; an Avro source's registry client is built here (it contacts nothing yet). */
  static ChangeDecoders of(SourceSpec source, SecretResolver secrets) {
    return switch (source.formatOrDefault()) {
      case JSON -> JSON;
      case AVRO -> {
        if (source.schemaRegistry() == null) {
          throw new dev.floe.worker.config.ConfigException("source.schemaRegistry", "is required with format: avro",
              "schemaRegistry: {url: http://apicurio:8080}");
        }
        yield avro(new CachedWriterSchemas(RegistryWriterSchemas.of(source.schemaRegistry(), secrets)));
      }
    };
  }
}
