package dev.floe.worker.cli;

import dev.floe.worker.apply.MoveLedger;
import dev.floe.worker.apply.MoveLedgerFiles;
import dev.floe.worker.apply.TableLayout;
import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.catalog.SinkTables;
import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.commit.SinkOffsets;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.TableNameTemplate;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Prints the offsets the table (each table, for a routed sink) holds for a sink: what has been applied, per partition. */
@Command(name = "offsets", mixinStandardHelpOptions = true, description = "Show the Kafka offsets the Iceberg table holds for this sink.")
final class OffsetsCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Override
  public Integer call() {
    SinkSpec spec = config.load();
    CatalogSpec catalog = ConfigOption.catalog(spec);
    Catalog catalogClient = CatalogLoader.load("floe", catalog, SecretResolver.fromEnvironment());
    List<TableIdentifier> tables = SinkTables.existing(catalogClient, spec);
    if (tables.isEmpty()) {
      String name = spec.table().name();
      System.out.println((TableNameTemplate.isTemplate(name) ? "no table of " + name + " holds offsets" : "table " + name + " holds no offsets")
          + " for sink " + spec.sinkId());
      return 0;
    }
    for (TableIdentifier id : tables) {
      org.apache.iceberg.Table table = catalogClient.loadTable(id);
      SinkOffsets offsets = OffsetLedger.read(table, spec.sinkId());
      print(id, offsets, spec.sinkId());
      printWaitingKeyChanges(table, offsets, spec);
    }
    return 0;
  }

  /** Primary-key updates whose other half has not been applied yet: a lagging partition shows here. */
  private static void printWaitingKeyChanges(org.apache.iceberg.Table table, SinkOffsets offsets, SinkSpec spec) {
    if (offsets.movesFile() == null) {
      return;
    }
    MoveLedger moves = MoveLedgerFiles.read(table, offsets.movesFile(), TableLayout.of(table, spec.table()));
    System.out.printf("  key changes waiting for their other half: %d deletes (their creates not applied yet), "
        + "%d creates (their deletes not applied yet; %d with values still to settle)%n",
        moves.departed().size(), moves.arrived().size(), moves.arrived().stream().filter(a -> !a.columns().isEmpty()).count());
  }

  private static void print(TableIdentifier table, SinkOffsets offsets, String sinkId) {
    if (offsets.isEmpty()) {
      System.out.printf("table %s holds no offsets for sink %s%n", table, sinkId);
      return;
    }
    System.out.printf("table %s, sink %s, snapshot %d%n", table, sinkId, offsets.snapshotId());
    offsets.next().entrySet().stream()
        .sorted((a, b) -> a.getKey().toString().compareTo(b.getKey().toString()))
        .forEach(e -> System.out.printf("  %-40s next offset %d%n", e.getKey(), e.getValue()));
    if (offsets.truncateLsn() != null) {
      System.out.printf("  truncate watermark (LSN) %d%n", offsets.truncateLsn());
    }
    // What stops the sink, and what an operator skipped to resume it.
    offsets.stops().values().forEach(p -> System.out.printf("  STOPPED at %s offset %d (in the dead-letter topic): %s%n",
        p.partition(), p.offset(), p.reason()));
    offsets.skipped().forEach(p -> System.out.printf("  skipped %s offset %d: %s%n", p.partition(), p.offset(), p.reason()));
  }
}
