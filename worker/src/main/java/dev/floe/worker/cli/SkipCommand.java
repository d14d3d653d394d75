package dev.floe.worker.cli;

import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.commit.RecordSkipper;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.TableNameTemplate;
import java.util.concurrent.Callable;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Skips the one record a stopped sink stands at, recording the skip in the table's offsets; run it while the sink is stopped. */
@Command(name = "skip", mixinStandardHelpOptions = true,
    description = "Skip the record a stopped sink stands at (it stays in the dead-letter topic); the skip is recorded in the table.")
final class SkipCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(names = "--topic", required = true, description = "The record's topic.")
  String topic;

  @Option(names = "--partition", required = true, description = "The record's partition.")
  int partition;

  @Option(names = "--offset", required = true, description = "The record's offset: the partition's next offset in the table.")
  long offset;

  @Option(names = "--reason", description = "Why, for the record (default: the reason the sink stopped with).")
  String reason;

  @Override
  public Integer call() {
    SinkSpec spec = config.load();
    Catalog catalog = CatalogLoader.load("floe", ConfigOption.catalog(spec), SecretResolver.fromEnvironment());
    String name = spec.table().name();
    TableIdentifier id = TableIdentifier.parse(TableNameTemplate.isTemplate(name) ? TableNameTemplate.resolve(name, topic) : name);
    Table table = catalog.loadTable(id);
    RecordSkipper.Skipped skipped = RecordSkipper.skip(table, spec.sinkId(), new TopicPartition(topic, partition), offset, reason);
    System.out.printf("skipped %s-%d@%d in table %s (snapshot %d): %s; the sink resumes at offset %d%n",
        topic, partition, offset, id, skipped.snapshotId(), skipped.skipped().reason(), offset + 1);
    return 0;
  }
}
