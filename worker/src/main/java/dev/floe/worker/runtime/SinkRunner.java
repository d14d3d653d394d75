package dev.floe.worker.runtime;

import dev.floe.worker.apply.IncompatibleSchemaException;
import dev.floe.worker.commit.SinkOffsets;
import dev.floe.worker.config.ConfigException;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.RejectedRecord;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.DeadLetterRefusedException;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.RejectedRecordsException;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.engine.TableRouter;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one sink: polls its topics with a consumer group, closes batches by the commit policy, and
 * has the engine of each record's table apply them (one table, or one per topic when the table
 * name is a template). On assignment it seeks to the offsets the table holds (the truth), so
 * rebalances and restarts neither lose nor double a batch; Kafka's group offsets are committed
 * after each Iceberg commit, for lag monitoring only.
 */
public final class SinkRunner implements Runnable, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SinkRunner.class);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration LAG_EVERY = Duration.ofSeconds(2);

  private final SinkSpec spec;
  private final TableRouter tables;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final KafkaProducer<byte[], byte[]> producer;
  private final DeadLetters deadLetters;
  private final WorkerMetrics metrics;
  private final OpenBatch batch;
  private final GroupOffsets groupOffsets = new GroupOffsets();
  /** The metadata of this worker's group-offset commits: its last snapshot and when. */
  private String commitStamp = "";
  private final OutageLog outage = new OutageLog(LOG, "applying batches");
  private volatile boolean running = true;
  private volatile boolean subscribed;
  private volatile Throwable failure;
  private volatile Set<TopicPartition> owned = Set.of();
  /** Tables of a routed sink that met a schema change they cannot follow: their partitions stay paused. */
  private final Map<SinkEngine, String> stoppedTables = new ConcurrentHashMap<>();
  private long lastLagNanos;

  public SinkRunner(SinkSpec spec, SinkEngine engine, WorkerMetrics metrics, SecretResolver secrets) {
    this(spec, TableRouter.single(engine), metrics, secrets);
  }

  public SinkRunner(SinkSpec spec, TableRouter tables, WorkerMetrics metrics, SecretResolver secrets) {
    this.spec = spec;
    this.tables = tables;
    this.metrics = metrics;
    this.batch = new OpenBatch(spec.commit());
    Map<String, String> extra = secrets.secretDirectory("source.kafkaSecretRef", spec.source().kafkaSecretRef());
    extra.putAll(secrets.resolveAll("source.properties", spec.source().properties()));
    this.consumer = new KafkaConsumer<>(consumerProperties(extra), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    if (spec.deadLetter() != null && spec.deadLetter().topic() != null) {
      this.producer = new KafkaProducer<>(producerProperties(extra), new ByteArraySerializer(), new ByteArraySerializer());
      this.deadLetters = new KafkaDeadLetters(producer, spec.deadLetter().topic());
    } else {
      this.producer = null;
      // The validator refuses this config; a sink built without it still stops rather than loops.
      this.deadLetters = rejected -> {
        throw new DeadLetterRefusedException(rejected.size() + " record(s) rejected but no deadLetter.topic is configured; first: "
            + rejected.get(0), null);
      };
    }
  }

  @Override
  public void run() {
    subscribe();
    try {
      while (running) {
        List<RawRecord> polled = poll();
        long now = System.nanoTime();
        polled.forEach(r -> batch.add(r, now));
        if (batch.isDue(now)) {
          flush();
        }
        if (now - lastLagNanos > LAG_EVERY.toNanos()) {
          updateLag();
          commitToKafka(groupOffsets.whileIdle(positions()));
          lastLagNanos = now;
        }
      }
      if (!batch.isEmpty()) {
        LOG.info("stopping: committing the open batch of {} record(s)", batch.records().size());
        flush();
      }
    } catch (RuntimeException e) {
      failure = e;
      throw e;
    } finally {
      running = false;
    }
  }

  /** Asks the loop to commit its open batch and stop; safe from any thread (a signal handler). */
  public void stop() {
    running = false;
    consumer.wakeup();
  }

  public boolean isRunning() {
    return running;
  }

  /** Ready once subscribed and not in an outage. */
  public boolean isReady() {
    return running && subscribed && !outage.isFailing();
  }

  /** The partitions this worker owns now. */
  public Set<TopicPartition> owned() {
    return owned;
  }

  public Throwable failure() {
    return failure;
  }

  private List<RawRecord> poll() {
    try {
      var records = consumer.poll(POLL);
      List<RawRecord> out = new java.util.ArrayList<>(records.count());
      for (ConsumerRecord<byte[], byte[]> r : records) {
        out.add(toRaw(r));
        groupOffsets.polled(new TopicPartition(r.topic(), r.partition()), r.offset());
      }
      return out;
    } catch (WakeupException e) {
      return List.of(); // stop() was called; the loop ends
    }
  }

  private void flush() {
    // Each table commits on its own; a retry after an outage finds the tables that already
    // committed holding these offsets and skips them.
    for (Map.Entry<SinkEngine, List<RawRecord>> part : tables.split(List.copyOf(batch.records())).entrySet()) {
      if (!apply(part.getKey(), part.getValue())) {
        break;
      }
    }
    batch.clear();
  }

  /** @return false when stopped during an outage: the batch is abandoned and re-read from the tables' offsets */
  private boolean apply(SinkEngine engine, List<RawRecord> records) {
    Duration backoff = Duration.ofMillis(200);
    while (true) {
      long t0 = System.nanoTime();
      try {
        BatchResult result = engine.apply(records, deadLetters);
        outage.succeeded();
        metrics.batchCommitted(engine.tableId().toString(), result, Duration.ofNanos(System.nanoTime() - t0));
        if (result.snapshotId() != null) {
          commitStamp = CommitStamp.of(java.time.Instant.now(), result.snapshotId());
        }
        commitToKafka(groupOffsets.afterTableCommit(result.nextOffsets(), positions()));
        LOG.info("batch: {} records, {} rows written, {} keys deleted, {} rejected, {} already applied -> {} snapshot {}",
            result.records(), result.rowsWritten(), result.keysDeleted(), result.rejected().size(), result.alreadyApplied(),
            engine.tableId(), result.snapshotId());
        return true;
      } catch (IncompatibleSchemaException e) {
        deadLetters.send(e.offending().stream().map(r -> new RejectedRecord(r, e.getMessage())).toList());
        if (!tables.routesManyTables()) {
          LOG.error("stopping: {}", e.getMessage());
          throw e;
        }
        stopTable(engine, e.getMessage());
        return true;
      } catch (RejectedRecordsException | DeadLetterRefusedException | ConfigException e) {
        LOG.error("stopping: {}", e.getMessage());
        throw e;
      } catch (RuntimeException e) {
        outage.failed(e);
        metrics.commitFailed();
        if (!running) {
          LOG.warn("stopping during an outage: the open batch is abandoned and will be re-read from the table's offsets");
          return false;
        }
        sleep(backoff);
        backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(30)) > 0 ? Duration.ofSeconds(30) : backoff.multipliedBy(2);
      }
    }
  }

  /**
   * One table of a routed sink cannot go on: its partitions are paused (and its open records
   * dropped, to be re-read from its offsets after a restart) while the other tables go on.
   */
  private void stopTable(SinkEngine engine, String reason) {
    stoppedTables.put(engine, reason);
    metrics.tableStopped(engine.tableId().toString());
    Set<TopicPartition> paused = pauseStoppedTables(consumer.assignment());
    LOG.error("table {} stopped: {}; its partitions {} are paused until the worker restarts, the other tables go on",
        engine.tableId(), reason, paused);
  }

  /** Pauses the partitions of stopped tables among these; returns them. */
  private Set<TopicPartition> pauseStoppedTables(Collection<TopicPartition> partitions) {
    if (stoppedTables.isEmpty()) {
      return Set.of();
    }
    Set<TopicPartition> paused = new HashSet<>();
    for (TopicPartition tp : partitions) {
      if (stoppedTables.containsKey(tables.engineFor(tp.topic()))) {
        paused.add(tp);
      }
    }
    consumer.pause(paused);
    batch.drop(paused);
    return paused;
  }

  /** Tables of this sink stopped by a schema change they cannot follow, with the reason. */
  public Map<String, String> stoppedTables() {
    Map<String, String> out = new HashMap<>();
    stoppedTables.forEach((engine, reason) -> out.put(engine.tableId().toString(), reason));
    return out;
  }

  /**
   * Advisory group offsets, for lag monitoring only: the table holds the truth. Each carries the
   * {@link CommitStamp} of this worker's last snapshot (empty before its first), so the operator
   * reads the sink's last commit time along with its lag.
   */
  private void commitToKafka(Map<TopicPartition, Long> next) {
    Map<TopicPartition, Long> owned = new HashMap<>(next);
    owned.keySet().retainAll(consumer.assignment());
    if (owned.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    owned.forEach((tp, o) -> offsets.put(tp, new OffsetAndMetadata(o, commitStamp)));
    try {
      consumer.commitSync(offsets);
      groupOffsets.committed(owned);
    } catch (WakeupException e) {
      running = false;
    } catch (RuntimeException e) {
      // Advisory only: the table holds the truth, a failed group commit just shows more lag.
      LOG.info("group offset commit failed (lag may read high until the next commit): {}", e.toString());
    }
  }

  /** The consumer's fetch positions of its assigned partitions; local, no broker round trip. */
  private Map<TopicPartition, Long> positions() {
    Map<TopicPartition, Long> out = new HashMap<>();
    for (TopicPartition tp : consumer.assignment()) {
      try {
        out.put(tp, consumer.position(tp, Duration.ZERO));
      } catch (org.apache.kafka.common.errors.TimeoutException e) {
        // Not known yet (no seek or fetch since the assignment): nothing to advance for it.
      }
    }
    return out;
  }

  private void subscribe() {
    ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        batch.drop(partitions);
        groupOffsets.forget(partitions);
        metrics.forget(partitions);
        owned = Set.copyOf(consumer.assignment().stream().filter(tp -> !partitions.contains(tp)).toList());
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> partitions) {
        onPartitionsRevoked(partitions);
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        seekToTableOffsets(partitions);
        pauseStoppedTables(partitions); // a rebalance resumes what it hands back
        owned = Set.copyOf(consumer.assignment());
      }
    };
    if (spec.source().topicPattern() != null && !spec.source().topicPattern().isBlank()) {
      consumer.subscribe(Pattern.compile(spec.source().topicPattern()), listener);
    } else {
      consumer.subscribe(spec.source().topics(), listener);
    }
    subscribed = true;
  }

  private void seekToTableOffsets(Collection<TopicPartition> partitions) {
    if (partitions.isEmpty()) {
      return;
    }
    Map<SinkEngine, SinkOffsets> held = new HashMap<>();
    Set<TopicPartition> unknown = new HashSet<>();
    for (TopicPartition tp : partitions) {
      SinkEngine engine = tables.engineFor(tp.topic());
      long next = held.computeIfAbsent(engine, SinkEngine::offsets).nextOffset(tp);
      if (next >= 0) {
        consumer.seek(tp, next);
      } else {
        unknown.add(tp);
      }
    }
    if (!unknown.isEmpty()) {
      // The table holds nothing for these yet: Kafka's group offsets, else the reset policy.
      consumer.committed(unknown).forEach((tp, committed) -> {
        if (committed != null) {
          consumer.seek(tp, committed.offset());
        }
      });
    }
    held.forEach((engine, offsets) -> LOG.info("assigned partition(s) of {}; resuming from the table's offsets {}", engine.tableId(), offsets));
  }

  private void updateLag() {
    Set<TopicPartition> assigned = consumer.assignment();
    if (assigned.isEmpty()) {
      return;
    }
    try {
      Map<TopicPartition, Long> ends = consumer.endOffsets(assigned, Duration.ofSeconds(2));
      for (TopicPartition tp : assigned) {
        long position = consumer.position(tp, Duration.ofSeconds(2));
        long uncommitted = batch.records().stream().filter(r -> r.topicPartition().equals(tp)).count();
        metrics.lag(tp, Math.max(0, ends.getOrDefault(tp, position) - position + uncommitted));
      }
    } catch (WakeupException e) {
      running = false;
    } catch (RuntimeException e) {
      LOG.debug("lag read failed: {}", e.toString());
    }
  }

  private static RawRecord toRaw(ConsumerRecord<byte[], byte[]> r) {
    Map<String, byte[]> headers = new LinkedHashMap<>();
    for (Header h : r.headers()) {
      headers.put(h.key(), h.value());
    }
    return new RawRecord(r.topic(), r.partition(), r.offset(), r.key(), r.value(), headers);
  }

  private Properties consumerProperties(Map<String, String> extra) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, spec.source().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, spec.source().groupId());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    // Debezium under Kafka Connect with exactly-once source support writes transactions: never
    // apply an aborted record.
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "floe-" + spec.sinkId());
    String instance = System.getenv("FLOE_INSTANCE_ID");
    if (instance != null && !instance.isBlank()) {
      // Static membership: a restarted worker (same pod) takes its partitions back without a rebalance.
      p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance);
    }
    p.putAll(extra);
    return p;
  }

  private Properties producerProperties(Map<String, String> extra) {
    Properties p = new Properties();
    extra.forEach((k, v) -> {
      if (!k.startsWith("group.") && !k.startsWith("auto.offset")) {
        p.put(k, v);
      }
    });
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, spec.source().bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "floe-dlq-" + spec.sinkId());
    return p;
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
    }
  }
}
