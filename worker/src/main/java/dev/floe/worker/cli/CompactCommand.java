package dev.floe.worker.cli;

import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.catalog.SinkTables;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.TableNameTemplate;
import dev.floe.worker.maintain.CompactionReport;
import dev.floe.worker.maintain.Compactor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Compacts the sink's table (or each table it routes to) beside live workers; the exit code tells a Job what happened. */
@Command(name = "compact", mixinStandardHelpOptions = true,
    description = "Rewrite small files and files with deletes, expire snapshots, remove orphans, rewrite manifests"
        + " (of each table, for a sink routed to many tables; --report then holds their totals)."
        + " Exit 0: done; 3: partial (a group lost a race, the next run retries); 1: failed.")
final class CompactCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Option(names = "--report", description = "Also write the report as JSON to this file (for a routed sink, the totals over its tables).")
  Path report;

  @Option(names = "--json", description = "Print the report as JSON instead of text.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    SinkSpec spec = config.load();
    CatalogSpec catalog = ConfigOption.catalog(spec);
    var catalogClient = CatalogLoader.load("floe", catalog, SecretResolver.fromEnvironment());
    List<TableIdentifier> tables = SinkTables.existing(catalogClient, spec);
    String name = spec.table().name();
    boolean routed = TableNameTemplate.isTemplate(name);
    if (tables.isEmpty()) {
      // A schedule can fire before the sink's first commit creates the table: nothing to do yet.
      System.out.println("floe compact: " + (routed ? "no table of " + name + " exists" : "table " + name + " does not exist")
          + " yet; nothing to compact");
      return 0;
    }
    List<CompactionReport> reports = new ArrayList<>();
    for (TableIdentifier id : tables) {
      CompactionReport r = new Compactor(catalogClient.loadTable(id), spec.sinkId(), spec.compaction()).run();
      reports.add(r);
      if (!json) {
        System.out.print(r.toText());
      }
    }
    if (json) {
      // one table: its report; a sink routed to many tables: an array of them
      System.out.println(routed ? reports.stream().map(CompactionReport::toJson).collect(Collectors.joining(",", "[", "]")) : reports.get(0).toJson());
    }
    if (report != null) {
      // the operator reads this from the Job's termination message: one object, however many tables
      Files.writeString(report, (routed ? CompactionReport.total(name, reports) : reports.get(0)).toJson());
    }
    return CompactionReport.worstExitCode(reports);
  }
}
