package dev.floe.worker.cli;

import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.commit.SinkOffsets;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.engine.SinkEngine;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Prints the offsets the table holds for a sink: what has been applied, per partition. */
@Command(name = "offsets", mixinStandardHelpOptions = true, description = "Show the Kafka offsets the Iceberg table holds for this sink.")
final class OffsetsCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Override
  public Integer call() {
    SinkSpec spec = config.load();
    CatalogSpec catalog = ConfigOption.catalog(spec);
    SinkEngine engine = new SinkEngine(spec, CatalogLoader.load("floe", catalog, SecretResolver.fromEnvironment()));
    SinkOffsets offsets = engine.offsets();
    if (offsets.isEmpty()) {
      System.out.printf("table %s holds no offsets for sink %s%n", spec.table().name(), spec.sinkId());
      return 0;
    }
    System.out.printf("table %s, sink %s, snapshot %d%n", spec.table().name(), spec.sinkId(), offsets.snapshotId());
    offsets.next().entrySet().stream()
        .sorted((a, b) -> a.getKey().toString().compareTo(b.getKey().toString()))
        .forEach(e -> System.out.printf("  %-40s next offset %d%n", e.getKey(), e.getValue()));
    if (offsets.truncateLsn() != null) {
      System.out.printf("  truncate watermark (LSN) %d%n", offsets.truncateLsn());
    }
    return 0;
  }
}
