package dev.floe.worker.cli;

import dev.floe.worker.quickstart.PostgresQuickstart;
import dev.floe.worker.quickstart.Quickstart;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import dev.floe.worker.config.SourceFormat;
import picocli.CommandLine.Option;

/** Runs the quickstart: a Kafka broker in process, a Debezium stream, a local Iceberg table. */
@Command(name = "quickstart", mixinStandardHelpOptions = true,
    description = "Run Floe end to end on this machine: an in-process Kafka broker, a Debezium stream of an orders table, a local Iceberg warehouse.")
final class QuickstartCommand implements Callable<Integer> {
  @Option(names = "--events", defaultValue = "50000", description = "Change events to stream (default ${DEFAULT-VALUE}).")
  int events;

  @Option(names = "--keys", defaultValue = "5000", description = "Distinct orders (default ${DEFAULT-VALUE}).")
  int keys;

  @Option(names = "--warehouse", defaultValue = "floe-warehouse", description = "Local warehouse directory (default ${DEFAULT-VALUE}).")
  Path warehouse;

  @Option(names = "--format", defaultValue = "json", converter = FormatConverter.class,
      description = "Wire format of the generated stream: json (JsonConverter with schemas) or avro (Apicurio's AvroConverter,"
          + " Confluent wire format, through a schema registry started in this process); default ${DEFAULT-VALUE}.")
  SourceFormat format;

  /** json | avro, as the sink config spells them. */
  static final class FormatConverter implements picocli.CommandLine.ITypeConverter<SourceFormat> {
    @Override
    public SourceFormat convert(String value) {
      return SourceFormat.valueOf(value.strip().toUpperCase(java.util.Locale.ROOT));
    }
  }

  @Option(names = "--postgres", description = "Capture this PostgreSQL (jdbc:postgresql://host:port/db, wal_level=logical) instead of a generated stream.")
  String postgres;

  @Option(names = "--pg-user", defaultValue = "postgres", description = "PostgreSQL user with replication rights (default ${DEFAULT-VALUE}).")
  String pgUser;

  @Option(names = "--pg-password", defaultValue = "${env:PGPASSWORD}", description = "PostgreSQL password (default: $PGPASSWORD).")
  String pgPassword;

  @Option(names = "--pg-table", defaultValue = "public.orders", description = "Table to capture (default ${DEFAULT-VALUE}).")
  String pgTable;

  @Option(names = "--follow", defaultValue = "10", description = "Seconds to follow live changes after catching up (default ${DEFAULT-VALUE}).")
  int follow;

  @Override
  public Integer call() throws Exception {
    if (postgres != null) {
      if (format == SourceFormat.AVRO) {
        System.err.println("--format avro applies to the generated stream; with --postgres the quickstart captures in JSON"
            + " (the e2e tests run the PostgreSQL pipeline in Avro)");
        return 2;
      }
      boolean equal = PostgresQuickstart.run(new PostgresQuickstart.Options(postgres, pgUser, pgPassword == null ? "" : pgPassword,
          pgTable, warehouse, follow), System.out);
      return equal ? 0 : 1;
    }
    Quickstart.Summary s = Quickstart.run(new Quickstart.Options(events, keys, warehouse, format), System.out);
    return s.equal() && s.lag() == 0 ? 0 : 1;
  }
}
