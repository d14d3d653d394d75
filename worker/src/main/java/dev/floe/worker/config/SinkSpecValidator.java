package dev.floe.worker.config;

import dev.floe.worker.apply.PartitionFields;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Checks a sink config before anything runs, collecting every problem with a hint. */
public final class SinkSpecValidator {
  private static final Pattern TABLE_NAME = Pattern.compile(TableSpec.NAME_PATTERN);
  private static final Pattern TOPIC = Pattern.compile(DeadLetterSpec.TOPIC_PATTERN);

  private SinkSpecValidator() {}

  public static List<ConfigProblem> problems(SinkSpec spec) {
    List<ConfigProblem> out = new ArrayList<>();
    if (spec.source() == null) {
      out.add(new ConfigProblem("source", "is required", "source: {bootstrapServers: kafka:9092, topics: [pg.public.orders], groupId: floe-orders}"));
    } else {
      SourceSpec s = spec.source();
      if (blank(s.groupId())) {
        out.add(new ConfigProblem("source.groupId", "is required: it names the sink's offsets in the table", "floe-orders"));
      }
      if (s.topics().isEmpty() == blank(s.topicPattern())) {
        out.add(new ConfigProblem("source.topics", "give exactly one of topics and topicPattern", "topics: [pg.public.orders]"));
      }
      if (!blank(s.topicPattern())) {
        try {
          Pattern.compile(s.topicPattern());
        } catch (PatternSyntaxException e) {
          out.add(new ConfigProblem("source.topicPattern", "is not a regular expression: " + e.getDescription(), "pg\\.public\\..*"));
        }
      }
      schemaRegistry(out, s);
    }
    if (spec.table() == null) {
      out.add(new ConfigProblem("table", "is required", "table: {name: analytics.orders}"));
    } else {
      TableSpec t = spec.table();
      String typo = TableNameTemplate.unknownPlaceholder(t.name());
      if (typo != null) {
        out.add(new ConfigProblem("table.name", "has the placeholder " + typo + ", which is not one of {schema}, {table}, {topic}"
            + " ({schema} and {table} are the last two segments of Debezium's topic name <prefix>.<schema>.<table>)", "mirror.{schema}_{table}"));
      } else if (blank(t.name()) || !TABLE_NAME.matcher(t.name()).matches()) {
        out.add(new ConfigProblem("table.name", "must be namespace.table, got '" + t.name() + "'", "analytics.orders"));
      } else if (TableNameTemplate.isTemplate(t.name())) {
        // one sink, many tables: settings that name columns of one table do not carry over
        if (!t.primaryKey().isEmpty()) {
          out.add(new ConfigProblem("table.primaryKey", "names columns of one table, but table.name '" + t.name()
              + "' routes each topic to its own table; leave it empty so each table keys on its Debezium key", "[]"));
        }
        if (!t.partitionBy().isEmpty()) {
          out.add(new ConfigProblem("table.partitionBy", "names columns of one table, but table.name '" + t.name()
              + "' routes each topic to its own table; give each such table its own sink", "[]"));
        }
      }
      if (t.formatVersion() != 2 && t.formatVersion() != 3) {
        out.add(new ConfigProblem("table.formatVersion", "must be 2 or 3, got " + t.formatVersion(), "2"));
      }
      for (int i = 0; i < t.partitionBy().size(); i++) {
        try {
          PartitionFields.parse(t.partitionBy().get(i));
        } catch (IllegalArgumentException e) {
          out.add(new ConfigProblem("table.partitionBy[" + i + "]", e.getMessage(), "day(created_at)"));
        }
      }
      CatalogSpec c = t.catalog();
      if (c != null) {
        boolean needsUri = c.type() == CatalogType.JDBC || c.type() == CatalogType.REST || c.type() == CatalogType.NESSIE;
        if (needsUri && blank(c.uri())) {
          out.add(new ConfigProblem("table.catalog.uri", "is required for a " + c.type().name().toLowerCase() + " catalog", "http://iceberg-rest:8181"));
        }
        boolean needsWarehouse = c.type() == CatalogType.LOCAL || c.type() == CatalogType.HADOOP || c.type() == CatalogType.JDBC;
        if (needsWarehouse && blank(c.warehouse())) {
          out.add(new ConfigProblem("table.catalog.warehouse", "is required for a " + c.type().name().toLowerCase() + " catalog", "s3://lake/warehouse"));
        }
      }
    }
    positive(out, "commit.interval", spec.commit().interval(), "10s");
    if (spec.deadLetter() != null && !blank(spec.deadLetter().topic())
        && !TOPIC.matcher(spec.deadLetter().topic()).matches()) {
      out.add(new ConfigProblem("deadLetter.topic", "is not a Kafka topic name (letters, digits, '.', '_', '-'): '"
          + spec.deadLetter().topic() + "'", "floe.dlq.orders"));
    }
    if (spec.commit().maxRecords() < 1) {
      out.add(new ConfigProblem("commit.maxRecords", "must be at least 1", "500000"));
    }
    if (spec.commit().maxBytes() < 1) {
      out.add(new ConfigProblem("commit.maxBytes", "must be at least 1", "268435456"));
    }
    // onError: dead-letter (the default) without a topic has nowhere to put the first bad record,
    // so a sink that validated would stop on it; refuse it now and say what to add.
    if (spec.onError() == OnError.DEAD_LETTER && (spec.deadLetter() == null || blank(spec.deadLetter().topic()))) {
      out.add(new ConfigProblem("deadLetter.topic", (spec.deadLetter() == null ? "is required" : "is empty")
          + " with onError: dead-letter (the default): add a dead-letter topic for records that cannot be applied,"
          + " or set onError: fail to stop the sink on the first one", "deadLetter: {topic: floe.dlq.orders}"));
    }
    compaction(out, spec.compaction());
    return out;
  }

  private static final String REGISTRY_EXAMPLE = "schemaRegistry: {url: http://apicurio:8080}";

  /** Avro needs a registry to fetch writer schemas from; a registry's URL must be http(s), and its auth one kind. */
  private static void schemaRegistry(List<ConfigProblem> out, SourceSpec s) {
    SchemaRegistrySpec r = s.schemaRegistry();
    if (s.formatOrDefault() == SourceFormat.AVRO && (r == null || blank(r.url()))) {
      out.add(new ConfigProblem("source.schemaRegistry.url", (r == null ? "is required" : "is empty")
          + " with format: avro: Avro records carry only a schema id, and the writer schema it names is fetched from the registry",
          REGISTRY_EXAMPLE));
      return;
    }
    if (r == null) {
      return;
    }
    if (s.formatOrDefault() != SourceFormat.AVRO) {
      out.add(new ConfigProblem("source.schemaRegistry", "is set but format is " + s.formatOrDefault().configName()
          + ", which reads no schema ids; set format: avro if the records are Avro, or remove schemaRegistry", "format: avro"));
    }
    if (!blank(r.url())) {
      java.net.URI uri = null;
      try {
        uri = new java.net.URI(r.url().strip());
      } catch (java.net.URISyntaxException e) {
        // worded below, with what a URL looks like
      }
      String scheme = uri == null || uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
      if (uri == null || !(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        out.add(new ConfigProblem("source.schemaRegistry.url", "'" + Redactor.redact(r.url()) + "' is not an http:// or https:// URL;"
            + " the registry is reached over HTTP: its base URL, e.g. the Apicurio service and port (Floe adds /apis/ccompat/v7"
            + " and /apis/registry/v3 itself)", "http://apicurio:8080"));
      } else if (!r.url().strip().equals(r.url()) || uri.getUserInfo() != null) {
        out.add(new ConfigProblem("source.schemaRegistry.url", uri.getUserInfo() != null
            ? "holds credentials; give them as username and password (references), not in the URL"
            : "has spaces around it", "http://apicurio:8080"));
      } else if (!blank(r.trustStore()) && scheme.equals("http")) {
        out.add(new ConfigProblem("source.schemaRegistry.trustStore", "is set but the url is http://, which uses no TLS;"
            + " use an https:// url, or remove trustStore", "https://apicurio:8443"));
      }
    }
    boolean basic = !blank(r.username()) || !blank(r.password());
    if (basic && !blank(r.token())) {
      out.add(new ConfigProblem("source.schemaRegistry.token", "and username/password are both set: give one kind of auth",
          "token: ${env:REGISTRY_TOKEN}"));
    }
    if (blank(r.username()) != blank(r.password())) {
      out.add(new ConfigProblem(blank(r.username()) ? "source.schemaRegistry.username" : "source.schemaRegistry.password",
          "is required with " + (blank(r.username()) ? "password" : "username") + " (HTTP basic auth takes both)",
          blank(r.username()) ? "username: floe" : "password: ${env:REGISTRY_PASSWORD}"));
    }
    if (!blank(r.trustStorePassword()) && blank(r.trustStore())) {
      out.add(new ConfigProblem("source.schemaRegistry.trustStore", "is required with trustStorePassword",
          "/etc/floe/secrets/registry-tls/truststore.p12"));
    }
  }

  private static void compaction(List<ConfigProblem> out, CompactionSpec c) {
    if (c == null) {
      return;
    }
    if (c.schedule() != null && !(CronSchedules.isValid(c.schedule()) && CronSchedules.fieldsInRange(c.schedule()))) {
      out.add(new ConfigProblem("compaction.schedule", "'" + c.schedule() + "' is not a cron schedule: five fields (minute hour day-of-month month"
          + " day-of-week) of numbers, ranges, steps, lists or *, or @hourly, @daily, @weekly, @monthly, @yearly", "0 */2 * * *"));
    }
    try {
      c.expireAfterDuration(); // 0s is allowed: retainLast keeps the newest snapshots whatever their age
    } catch (IllegalArgumentException e) {
      out.add(new ConfigProblem("compaction.expireAfter", e.getMessage(), "5d"));
    }
    positive(out, "compaction.orphanAfter", c.orphanAfter(), "3d");
    if (c.targetFileSize() < 1 << 20) {
      out.add(new ConfigProblem("compaction.targetFileSize", "must be at least 1 MiB (1048576), got " + c.targetFileSize(), "134217728"));
    }
    atLeastOne(out, "compaction.minInputFiles", c.minInputFiles(), "5");
    atLeastOne(out, "compaction.retainLast", c.retainLast(), "10");
    atLeastOne(out, "compaction.maxManifests", c.maxManifests(), "50");
    SelfCompactionSpec self = c.selfCompaction();
    positive(out, "compaction.selfCompaction.idleAfter", self.idleAfter(), "30s");
    if (!(self.maxDeadFraction() > 0 && self.maxDeadFraction() <= 1)) {
      out.add(new ConfigProblem("compaction.selfCompaction.maxDeadFraction", "must be a fraction of a file's rows above 0 and at most 1"
          + " (0.2: rewrite a file once a fifth of its rows are deleted), got " + self.maxDeadFraction(), "0.2"));
    }
  }

  /** Every interval must parse and be longer than zero: a zero interval would spin. */
  public static void positive(List<ConfigProblem> out, String field, String value, String example) {
    try {
      Durations.parsePositive(value);
    } catch (IllegalArgumentException e) {
      out.add(new ConfigProblem(field, e.getMessage(), example));
    }
  }

  private static void atLeastOne(List<ConfigProblem> out, String field, int value, String example) {
    if (value < 1) {
      out.add(new ConfigProblem(field, "must be at least 1, got " + value, example));
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
