package dev.floe.worker.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.inspect.PartitionLag;
import dev.floe.worker.inspect.SinkStatus;
import dev.floe.worker.inspect.SinkStatusReader;
import dev.floe.worker.inspect.TableFacts;
import dev.floe.worker.inspect.TableStatus;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Prints a sink's health: lag per partition, freshness, and what its tables cost readers. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Show how far behind a sink is, how fresh its tables are, and what they cost readers.")
final class StatusCommand implements Callable<Integer> {
  @Mixin ConfigOption config;
  @Spec CommandSpec command;

  @Option(names = "--json", description = "Print the status as JSON.")
  boolean json;

  @Option(names = "--no-scan", description = "Skip counting live rows (a scan of the key columns).")
  boolean noScan;

  @Option(names = "--timeout", defaultValue = "10", description = "Seconds to wait for Kafka (default ${DEFAULT-VALUE}).")
  int timeoutSeconds;

  @Override
  public Integer call() throws Exception {
    SinkSpec spec = config.load();
    SecretResolver secrets = SecretResolver.fromEnvironment();
    var catalog = CatalogLoader.load("floe", ConfigOption.catalog(spec), secrets);
    SinkStatus status = new SinkStatusReader(catalog, dev.floe.worker.runtime.KafkaClientSettings.of(spec.source(), secrets), Duration.ofSeconds(timeoutSeconds), !noScan)
        .read(spec, Instant.now());
    PrintWriter out = command.commandLine().getOut();
    if (json) {
      out.println(new ObjectMapper().setSerializationInclusion(JsonInclude.Include.ALWAYS).enable(SerializationFeature.INDENT_OUTPUT)
          .writeValueAsString(status));
    } else {
      print(status, out);
    }
    out.flush();
    return 0;
  }

  static void print(SinkStatus s, PrintWriter out) {
    out.printf(Locale.ROOT, "sink %s: lag %s, %d table(s)%n", s.sink(), s.lag() == null ? "unknown" : String.format(Locale.ROOT, "%,d", s.lag()),
        s.tables().size());
    if (s.kafkaError() != null) {
      out.println("  " + s.kafkaError());
    }
    for (TableStatus t : s.tables()) {
      out.println();
      if (t.snapshotId() == null) {
        out.printf("table %s: %s%n", t.table(), t.facts() == null ? "not created yet" : "holds no offsets of this sink yet");
      } else {
        out.printf(Locale.ROOT, "table %s: snapshot %d committed %s (%s ago)%n", t.table(), t.snapshotId(), t.lastCommit(),
            Duration.ofSeconds(t.secondsSinceCommit()).toString().substring(2).toLowerCase(Locale.ROOT));
      }
      for (String stop : t.stoppedAt()) {
        out.printf("  STOPPED at %s%n    resume: evolve the table by hand and restart, or floe skip -c <config> --topic T --partition P --offset O%n", stop);
      }
      if (!t.partitions().isEmpty()) {
        out.printf("  %-44s %14s %14s %12s%n", "partition", "table offset", "end offset", "lag");
        for (PartitionLag p : t.partitions()) {
          out.printf(Locale.ROOT, "  %-44s %14s %14s %12s%n", p.topic() + "-" + p.partition(), number(p.tableOffset()),
              number(p.endOffset()), number(p.lag()));
        }
      }
      TableFacts f = t.facts();
      if (f != null) {
        out.printf(Locale.ROOT, "  files: %,d data (%,d rows), %,d delete (%,d position, %,d equality deletes); %d snapshot(s)%n",
            f.dataFiles(), f.dataFileRows(), f.deleteFiles(), f.positionDeletes(), f.equalityDeletes(), f.snapshots());
        if (f.liveRows() != null) {
          out.printf(Locale.ROOT, "  live rows %,d; rows readers read only to discard: %.1f%%%n", f.liveRows(), 100 * f.deadRowFraction());
        }
      }
    }
  }

  private static String number(Long v) {
    return v == null ? "-" : String.format(Locale.ROOT, "%,d", v);
  }
}
