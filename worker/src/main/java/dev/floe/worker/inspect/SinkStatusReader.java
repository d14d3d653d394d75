package dev.floe.worker.inspect;

import dev.floe.worker.catalog.SinkTables;
import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.commit.SinkOffsets;
import dev.floe.worker.config.ConfigException;
import dev.floe.worker.config.Redactor;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.TableNameTemplate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a sink's status from where the truth lives: the offsets each table holds (the table is the
 * ledger), the topics' end offsets from Kafka, and the tables' own metadata. A Kafka that cannot
 * be reached leaves the lag unknown, with the reason, and the tables' facts still shown.
 */
public final class SinkStatusReader {
  private final Catalog catalog;
  private final Map<String, String> kafkaProperties;
  private final Duration timeout;
  private final boolean countLiveRows;

  public SinkStatusReader(Catalog catalog, Map<String, String> kafkaProperties, Duration timeout, boolean countLiveRows) {
    this.catalog = catalog;
    this.kafkaProperties = kafkaProperties;
    this.timeout = timeout;
    this.countLiveRows = countLiveRows;
  }

  public SinkStatus read(SinkSpec spec, Instant now) {
    Map<TopicPartition, Long> ends = Map.of();
    Map<TopicPartition, Long> starts = Map.of();
    List<TopicPartition> partitions = List.of();
    String kafkaError = null;
    try (SourceOffsets kafka = new SourceOffsets(kafkaProperties, spec.source().bootstrapServers(), timeout)) {
      partitions = kafka.partitions(spec.source().topics(), spec.source().topicPattern());
      ends = kafka.ends(partitions);
      starts = kafka.starts(partitions);
    } catch (ExecutionException e) {
      kafkaError = "cannot read the topics' offsets from " + spec.source().bootstrapServers() + ": " + e.getCause();
    } catch (java.util.concurrent.TimeoutException | org.apache.kafka.common.KafkaException e) {
      kafkaError = "cannot read the topics' offsets from " + spec.source().bootstrapServers() + ": " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kafkaError = "interrupted while reading the topics' offsets";
    }

    Map<String, List<TopicPartition>> byTable = new LinkedHashMap<>();
    for (TableIdentifier id : SinkTables.existing(catalog, spec)) {
      byTable.put(id.toString(), new ArrayList<>());
    }
    for (TopicPartition tp : partitions) {
      String table = tableOf(spec, tp.topic());
      if (table != null) {
        byTable.computeIfAbsent(table, t -> new ArrayList<>()).add(tp);
      }
    }
    if (byTable.isEmpty() && !TableNameTemplate.isTemplate(spec.table().name())) {
      byTable.put(spec.table().name(), new ArrayList<>());
    }

    List<TableStatus> tables = new ArrayList<>();
    Long total = kafkaError == null ? 0L : null;
    for (Map.Entry<String, List<TopicPartition>> e : byTable.entrySet()) {
      TableStatus status = table(spec, e.getKey(), e.getValue(), ends, starts, kafkaError == null, now);
      tables.add(status);
      total = total == null || status.lag() == null ? null : total + status.lag();
    }
    return new SinkStatus(spec.sinkId(), total, kafkaError == null ? null : Redactor.redact(kafkaError), tables);
  }

  private TableStatus table(SinkSpec spec, String name, List<TopicPartition> fed, Map<TopicPartition, Long> ends,
      Map<TopicPartition, Long> starts, boolean endsKnown, Instant now) {
    TableIdentifier id = TableIdentifier.parse(name);
    Table table = catalog.tableExists(id) ? catalog.loadTable(id) : null;
    SinkOffsets offsets = table == null ? SinkOffsets.NONE : OffsetLedger.read(table, spec.sinkId());
    // Partitions the table holds offsets for but Kafka no longer lists (a deleted topic) still show.
    TreeSet<TopicPartition> all = new TreeSet<>((a, b) -> a.topic().equals(b.topic())
        ? Integer.compare(a.partition(), b.partition()) : a.topic().compareTo(b.topic()));
    all.addAll(fed);
    all.addAll(offsets.next().keySet());
    List<PartitionLag> lags = new ArrayList<>();
    Long lag = endsKnown ? 0L : null;
    for (TopicPartition tp : all) {
      Long held = offsets.next().get(tp);
      Long end = ends.get(tp);
      Long behind = end == null ? null : Math.max(0, end - (held != null ? held : starts.getOrDefault(tp, 0L)));
      lags.add(new PartitionLag(tp.topic(), tp.partition(), held, end, behind));
      if (lag != null && behind != null) {
        lag += behind; // a partition Kafka no longer lists has no lag to add
      }
    }
    Snapshot committed = table == null || offsets.snapshotId() == null ? null : table.snapshot(offsets.snapshotId());
    Instant at = committed == null ? null : Instant.ofEpochMilli(committed.timestampMillis());
    return new TableStatus(name, offsets.snapshotId(), at == null ? null : at.toString(),
        at == null ? null : Math.max(0, Duration.between(at, now).toSeconds()), lags, lag,
        table == null ? null : TableFacts.of(table, countLiveRows));
  }

  private static String tableOf(SinkSpec spec, String topic) {
    String name = spec.table().name();
    if (!TableNameTemplate.isTemplate(name)) {
      return name;
    }
    try {
      return TableNameTemplate.resolve(name, topic);
    } catch (ConfigException e) {
      return null; // a topic the worker would not route either; validation names it
    }
  }
}
