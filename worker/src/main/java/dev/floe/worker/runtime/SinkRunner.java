package dev.floe.worker.runtime;

import dev.floe.worker.apply.IncompatibleSchemaException;
import dev.floe.worker.commit.SinkOffsets;
import dev.floe.worker.config.ConfigException;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.SharedSchemas;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.DeadLetterRefusedException;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.RejectedRecordsException;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.engine.TableRouter;
import dev.floe.worker.engine.TableStoppedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.UnreleasedInstanceIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
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
  /** While a batch is in flight: short polls, so its outcome is taken and the next handed over soon after it commits. */
  private static final Duration BUSY_POLL = Duration.ofMillis(20);
  private static final Duration LAG_EVERY = Duration.ofSeconds(2);
  private static final Duration RANGE_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration LAG_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

  private final SinkSpec spec;
  private final TableRouter tables;
  /** The polling thread's consumer: replaced once, before any assignment, if the brokers refuse the consumer group protocol. */
  private volatile KafkaConsumer<byte[], SharedSchemas.Held> consumer;
  private final java.util.function.Function<GroupProtocol, KafkaConsumer<byte[], SharedSchemas.Held>> consumers;
  private GroupProtocolChoice groupProtocol;
  private final KafkaProducer<byte[], byte[]> producer;
  private final DeadLetters deadLetters;
  private final WorkerMetrics metrics;
  private final OpenBatch batch;
  /** Applies closed batches on a thread of its own while this one polls the next. */
  private final BatchPipeline pipeline;
  /** Partitions paused because the next batch is full while the previous one still commits. */
  private final Set<TopicPartition> heldBack = new HashSet<>();
  /** What finishing the batch in flight threw inside a rebalance callback, rethrown once poll returns. */
  private RuntimeException pendingFailure;
  private final GroupOffsets groupOffsets = new GroupOffsets();
  private final AheadDecoder<SinkEngine> aheadDecoder;
  /** Re-reads from Kafka the rejected records that released their bytes; null without a dead-letter topic. */
  private final SourceRereader rereader;
  private final WakeBacklog wakeBacklog = new WakeBacklog();
  /** The wake-up backlog has been read: the open batch is due although its interval is not up. */
  private boolean wakeBacklogRead;
  /** The metadata of this worker's group-offset commits: its last snapshot and when. */
  private String commitStamp = "";
  private final OutageLog outage = new OutageLog(LOG, "applying batches");
  private final KafkaContact kafka;
  /** Set when the group has handed this worker its (possibly empty) assignment; cleared when it is lost. */
  private volatile boolean joined;
  private volatile boolean running = true;
  private volatile boolean subscribed;
  /**
   * Kafka reached and the dead-letter topic checked ({@link #awaitKafka}), on a thread of its own
   * while the group is joined: true once passed, false when stopped first; completes exceptionally
   * when the topic is missing. No batch is handed over, and the worker is not ready, before it passes.
   */
  private volatile CompletableFuture<Boolean> kafkaChecked = new CompletableFuture<>();
  private volatile Throwable failure;
  private volatile Set<TopicPartition> owned = Set.of();
  /** Tables of a routed sink that met a schema change they cannot follow: their partitions stay paused. */
  private final Map<SinkEngine, String> stoppedTables = new ConcurrentHashMap<>();
  /** Where the tables stopped stand, per partition: their true lag is the end offset minus this. */
  private final Map<TopicPartition, Long> stoppedFrom = new ConcurrentHashMap<>();
  /** Tables whose meters exist (registered once, with the table's last commit). */
  private final Set<SinkEngine> metered = ConcurrentHashMap.newKeySet();
  private long lastLagNanos;
  /** False for the baseline: poll, then apply, then poll again, nothing decoded ahead. */
  private boolean overlap = true;
  /** Records polled since the start (tests read it to see polling go on during a commit). */
  private volatile long polledRecords;
  /** Compacts what this worker wrote once it is idle (see {@link SelfCompaction}). */
  private final SelfCompaction selfCompaction;
  private final StartupTimeline startup = StartupTimeline.process();

  public SinkRunner(SinkSpec spec, SinkEngine engine, WorkerMetrics metrics, SecretResolver secrets) {
    this(spec, TableRouter.single(engine), metrics, secrets);
  }

  public SinkRunner(SinkSpec spec, TableRouter tables, WorkerMetrics metrics, SecretResolver secrets) {
    this(spec, tables, metrics, secrets, System.getenv("FLOE_INSTANCE_ID"));
  }

  /**
   * @param instanceId this worker's stable identity in the consumer group (static membership: the
   *     pod name), or null for a dynamic member
   */
  public SinkRunner(SinkSpec spec, TableRouter tables, WorkerMetrics metrics, SecretResolver secrets, String instanceId) {
    this.spec = spec;
    this.tables = tables;
    this.metrics = metrics;
    SharedSchemas schemas = new SharedSchemas(); // the polling thread's: the consumer holds values with them, the batch keeps them
    // A started worker's first batches are smaller: it starts applying while its backlog is read.
    this.batch = new OpenBatch(spec.commit(), schemas, BatchRamp.upTo(spec.commit().maxRecords()));
    this.pipeline = new BatchPipeline("floe-apply-" + spec.sinkId());
    this.aheadDecoder = AheadDecoder.forEngines(spec.sinkId());
    this.selfCompaction = new SelfCompaction(spec.compaction(), metrics, System.nanoTime());
    // Before the Kafka clients: creating them loads thousands of classes, while the table and its
    // index can load (on the applying thread) as soon as the catalog answers.
    warmUpBeforeJoining();
    Map<String, String> extra = KafkaClientSettings.of(spec.source(), secrets);
    this.groupProtocol = GroupProtocolChoice.of(extra);
    this.consumers = protocol ->
        new KafkaConsumer<>(consumerProperties(extra, instanceId, protocol), new ByteArrayDeserializer(), new HeldValueDeserializer(schemas));
    this.consumer = consumers.apply(groupProtocol.first());
    this.kafka = new KafkaContact(KafkaContact.properties(extra, spec.source().bootstrapServers(), "floe-admin-" + spec.sinkId()),
        spec.source().bootstrapServers(), metrics);
    if (spec.deadLetter() != null && spec.deadLetter().topic() != null) {
      this.producer = new KafkaProducer<>(producerProperties(extra), new ByteArraySerializer(), new ByteArraySerializer());
      this.rereader = SourceRereader.of(spec.source().bootstrapServers(), extra, spec.sinkId());
      this.deadLetters = new KafkaDeadLetters(producer, spec.deadLetter().topic(), rereader);
    } else {
      this.producer = null;
      this.rereader = null;
      // The validator refuses this config; a sink built without it still stops rather than loops.
      this.deadLetters = rejected -> {
        throw new DeadLetterRefusedException(rejected.size() + " record(s) rejected but no deadLetter.topic is configured; first: "
            + rejected.get(0), null);
      };
    }
  }

  @Override
  public void run() {
    try {
      // Reaching Kafka and checking the dead-letter topic cost a cold admin client most of a second:
      // the group is joined meanwhile. Nothing is handed over to be applied (and so dead-lettered) before it passes.
      kafkaChecked = checkKafkaInBackground();
      subscribe();
      while (running) {
        long t0 = System.nanoTime();
        List<RawRecord> fetched = pollOrWait(pipeline.busy() ? BUSY_POLL : POLL);
        rethrowPendingFailure();
        rethrowKafkaCheckFailure();
        long now = System.nanoTime();
        List<RawRecord> polled = new ArrayList<>(fetched.size()); // as the batch holds them: decoded ahead by identity
        fetched.forEach(r -> polled.add(batch.add(r, now)));
        polledRecords += polled.size();
        if (overlap) {
          decodeAhead(polled); // on the decoding thread, beside polling and the batch before committing
        }
        pipeline.phases().polled(System.nanoTime() - t0);
        if (pipeline.done()) {
          finishInFlight();
        }
        wakeBacklogRead |= !batch.isEmpty() && wakeBacklog.drainedBy(positions());
        boolean due = batch.isDue(now) || wakeBacklogRead;
        if (due && running) {
          if (pipeline.busy() || !kafkaCheckPassed()) {
            holdBack(); // the next batch is full while the previous one commits: poll on, but read nothing more
          } else {
            handOff();
            wakeBacklogRead = false;
            if (!overlap) {
              finishInFlight();
            }
          }
        }
        if (!(pipeline.busy() && due)) {
          releaseHoldBack();
        }
        if (now - lastLagNanos > LAG_EVERY.toNanos()) {
          updateLag(); // also tells whether Kafka is reachable
          commitToKafka(groupOffsets.whileIdle(positions()));
          lastLagNanos = now;
        }
        // only while no batch is in flight: the engines (their tables, their indexes) are then this thread's
        selfCompaction.tick(System.nanoTime(), !polled.isEmpty(), batch.isEmpty() && !pipeline.busy(), () -> running);
      }
      finishInFlight();
      rethrowKafkaCheckFailure();
      if (!batch.isEmpty() && !awaitKafkaCheck()) {
        return; // stopped before Kafka could be reached: nothing applied; the records are re-read from the table's offsets
      }
      while (!batch.isEmpty()) { // the open batch, then any records waiting for the next
        LOG.info("stopping: committing the open batch of {} record(s)", batch.records().size());
        handOff();
        finishInFlight();
      }
      tables.engines().forEach(SinkEngine::persistIndexIfChanged);
    } catch (RuntimeException e) {
      failure = e;
      throw e;
    } finally {
      running = false;
      pipeline.close(); // a batch still in flight (the loop failed under it) finishes or gives up first
      aheadDecoder.close();
      LOG.info("{}; decoding thread {} s, polling thread waited {} s for it", pipeline.phases(),
          String.format(java.util.Locale.ROOT, "%.2f", aheadDecoder.decodeSeconds()), String.format(java.util.Locale.ROOT, "%.2f", aheadDecoder.waitSeconds()));
      for (SinkEngine engine : tables.engines()) {
        LOG.info("applying {}, seconds per phase: {}", engine.tableId(), engine.phaseTimes());
      }
    }
  }

  /** Hands the open batch, split by table, to the applying thread; the next batch opens with what was waiting. */
  private void handOff() {
    List<RawRecord> records = List.copyOf(batch.records());
    Map<SinkEngine, List<RawRecord>> parts = tables.split(records); // here: the router is this thread's
    Runnable decoded = aheadDecoder.takeQueued();
    batch.clear();
    startup.mark("first batch handed over");
    pipeline.submit(records, () -> {
      decoded.run();
      startup.mark("first batch decoded");
      return applyAll(records, parts);
    });
  }

  /**
   * Queues polled records for the decoding thread, so that applying their batch does not decode
   * them (see {@link AheadDecoder}). The engines are found here: the router is this thread's.
   */
  private void decodeAhead(List<RawRecord> polled) {
    aheadDecoder.submit(tables.split(polled));
  }

  /** Drops the open batch's records of these partitions, and what was decoded of them. */
  private void dropOpen(Collection<TopicPartition> partitions) {
    batch.drop(partitions); // their queued decodes are never looked up
  }

  /** Forgets every record polled and not handed over: they are re-read from the tables' offsets. */
  private void abandonOpen() {
    batch.abandon();
    aheadDecoder.clear();
  }

  /**
   * Waits for the batch in flight and acts on its outcome here, on the polling thread: group
   * offsets, stopped tables. A batch that failed or was abandoned takes the open batch with it: a
   * batch never commits after one before it did not.
   */
  private void finishInFlight() {
    try {
      settle(pipeline.await());
    } catch (RuntimeException e) {
      abandonOpen();
      throw e;
    }
  }

  /** Inside a rebalance callback: what finishing the batch in flight throws is kept for after the poll. */
  private void finishInFlightInRebalance() {
    try {
      finishInFlight();
    } catch (RuntimeException e) {
      running = false;
      if (pendingFailure == null) {
        pendingFailure = e;
      }
    }
  }

  private void rethrowPendingFailure() {
    if (pendingFailure != null) {
      RuntimeException e = pendingFailure;
      pendingFailure = null;
      throw e;
    }
  }

  /** Pauses every partition not paused yet, so the open batch stops growing while the one before it commits. */
  private void holdBack() {
    Set<TopicPartition> more = new HashSet<>(consumer.assignment());
    more.removeAll(consumer.paused());
    if (!more.isEmpty()) {
      consumer.pause(more);
      heldBack.addAll(more);
    }
    pipeline.phases().heldBack(true);
  }

  /** Resumes what {@link #holdBack()} paused, except the partitions of tables that stopped meanwhile. */
  private void releaseHoldBack() {
    pipeline.phases().heldBack(false);
    if (heldBack.isEmpty()) {
      return;
    }
    Set<TopicPartition> resume = new HashSet<>(heldBack);
    resume.retainAll(consumer.assignment());
    resume.removeIf(tp -> stoppedTables.containsKey(tables.engineFor(tp.topic())));
    consumer.resume(resume);
    heldBack.clear();
  }

  /**
   * Makes this runner apply each batch before polling on, decoding nothing ahead: the order of the
   * single-threaded loop, kept as the baseline its benchmark compares the overlap with. (The table
   * and its index still load before the group is joined, as for any runner of one table.)
   */
  SinkRunner withoutOverlap() {
    this.overlap = false;
    return this;
  }

  /** Asks the loop to commit its open batch and stop; safe from any thread (a signal handler). */
  public void stop() {
    running = false;
    consumer.wakeup();
  }

  public boolean isRunning() {
    return running;
  }

  /**
   * Ready once the group has handed this worker its assignment, while Kafka answers and batches
   * commit: a worker that never reached the broker, or lost it, is not ready.
   */
  public boolean isReady() {
    return running && subscribed && joined && kafkaCheckPassed() && kafka.connected() && !outage.isFailing();
  }

  /**
   * Before applying anything: reach Kafka (retrying, logged once, counted) and check that the
   * dead-letter topic exists, so a missing one stops the worker now with what to create, not at the
   * first bad record after a minute of silence. Runs beside the group join ({@link #checkKafkaInBackground}).
   *
   * @return false when stopped before Kafka could be reached
   */
  private boolean awaitKafka() {
    String dlq = spec.deadLetter() == null ? null : spec.deadLetter().topic();
    Duration backoff = Duration.ofMillis(500);
    while (running) {
      // a missing dead-letter topic throws: the polling loop rethrows it (and logs it) after its next poll
      boolean reached = dlq != null && !dlq.isBlank() ? kafka.checkTopic(dlq, PROBE_TIMEOUT) : kafka.probe(PROBE_TIMEOUT);
      if (reached) {
        return true;
      }
      sleepWhileRunning(backoff);
      backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(10)) > 0 ? Duration.ofSeconds(10) : backoff.multipliedBy(2);
    }
    return false;
  }

  /** Runs {@link #awaitKafka} on a daemon thread of its own. */
  private CompletableFuture<Boolean> checkKafkaInBackground() {
    CompletableFuture<Boolean> checked = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        boolean reached = awaitKafka();
        if (reached) {
          startup.mark("kafka reached");
        }
        checked.complete(reached);
      } catch (RuntimeException e) {
        checked.completeExceptionally(e);
      }
    }, "floe-kafka-check-" + spec.sinkId());
    t.setDaemon(true);
    t.start();
    return checked;
  }

  /** Whether Kafka was reached and the dead-letter topic found (false while that is still being checked). */
  private boolean kafkaCheckPassed() {
    return kafkaChecked.isDone() && !kafkaChecked.isCompletedExceptionally() && kafkaChecked.join();
  }

  /** Stops the loop with what the check of Kafka threw (a missing dead-letter topic), once it did. */
  private void rethrowKafkaCheckFailure() {
    if (kafkaChecked.isCompletedExceptionally()) {
      awaitKafkaCheck();
    }
  }

  /** Waits for the check of Kafka: true when it passed, false when stopped first; rethrows what it threw. */
  private boolean awaitKafkaCheck() {
    try {
      return kafkaChecked.join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        LOG.error("stopping: {}", r.getMessage());
        throw r;
      }
      throw e;
    }
  }

  /** The partitions this worker owns now. */
  public Set<TopicPartition> owned() {
    return owned;
  }

  /**
   * A sink of one table knows it before the group assigns it partitions: its table and index load
   * on the applying thread (from construction on, once the catalog answers) while the Kafka clients
   * start, Kafka is probed and the group joined. The assignment does not wait for it: it seeks with
   * offsets read apart ({@link SinkEngine#offsetsReadApart}), and the first batch, polled and decoded
   * meanwhile, is handed over once the warm-up ends.
   */
  private void warmUpBeforeJoining() {
    List<String> topics = spec.source().topics();
    if (tables.routesManyTables() || topics == null || topics.isEmpty()) {
      return;
    }
    warmUpEngines(Set.of(tables.engineFor(topics.get(0))));
  }

  /**
   * Loads the assigned tables and their indexes on the applying thread while this one polls their
   * backlog: a worker woken from zero would otherwise do it only once its first batch is handed over.
   */
  private void warmUp(Collection<TopicPartition> partitions) {
    if (!overlap || pipeline.busy() || partitions.isEmpty()) {
      return;
    }
    Set<SinkEngine> engines = new java.util.LinkedHashSet<>();
    partitions.forEach(tp -> engines.add(tables.engineFor(tp.topic())));
    engines.removeAll(stoppedTables.keySet());
    warmUpEngines(engines);
  }

  /** Warms engines up as a batch of no records: busy meanwhile, so this thread leaves the engines alone. */
  private void warmUpEngines(Set<SinkEngine> engines) {
    pipeline.submit(List.of(), () -> {
      engines.forEach(SinkEngine::warmUp);
      startup.mark("table and index loaded");
      return new BatchPipeline.Applied(List.of(), List.of(), false);
    });
  }

  /** Records polled since the start, committed or not. */
  long polledRecords() {
    return polledRecords;
  }

  public Throwable failure() {
    return failure;
  }

  /**
   * Polls, waiting up to {@code timeout} for records. While any partition is paused (the next batch
   * held back while one commits, or a stopped table's), Kafka's consumer-protocol client (4.3)
   * re-queues their buffered fetches at every turn of its poll loop and wakes itself doing so
   * (KAFKA-21084), spinning through the whole timeout: the polling thread took more CPU than the
   * decoding thread. So then it polls without waiting and waits here: for the batch in flight when
   * holding back (its outcome is taken the moment it is in), else for {@link #BUSY_POLL} at most
   * (records of the partitions still fetching are taken at the next turn).
   */
  private List<RawRecord> pollOrWait(Duration timeout) {
    if (consumer.paused().isEmpty()) {
      return poll(timeout);
    }
    List<RawRecord> fetched = poll(Duration.ZERO);
    if (fetched.isEmpty() && running) {
      Duration wait = timeout.compareTo(BUSY_POLL) < 0 ? timeout : BUSY_POLL;
      if (!heldBack.isEmpty() && pipeline.busy()) {
        try {
          pipeline.awaitDone(wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt(); // the next poll throws Kafka's InterruptException, as an interrupted poll would
        }
      } else {
        sleep(wait);
      }
    }
    return fetched;
  }

  private List<RawRecord> poll(Duration timeout) {
    try {
      var records = consumer.poll(timeout);
      List<RawRecord> out = new java.util.ArrayList<>(records.count());
      for (TopicPartition tp : records.partitions()) {
        List<ConsumerRecord<byte[], SharedSchemas.Held>> polled = records.records(tp);
        for (ConsumerRecord<byte[], SharedSchemas.Held> r : polled) {
          out.add(toRaw(tp, r)); // one TopicPartition instance per partition: the batch's map lookups compare by reference
        }
        groupOffsets.polled(tp, polled.get(polled.size() - 1).offset());
      }
      return out;
    } catch (WakeupException e) {
      return List.of(); // stop() was called; the loop ends
    } catch (OffsetOutOfRangeException e) {
      ResumeRefusedException refused = outOfRange(e);
      LOG.error("stopping: {}", refused.getMessage());
      throw refused;
    } catch (UnsupportedVersionException | UnreleasedInstanceIdException e) {
      if (!groupProtocol.fallBackToClassic() || joined) {
        throw e;
      }
      joinWithClassicProtocol(e);
      return List.of();
    } catch (KafkaException e) {
      // The consumer wraps what the rebalance listener throws: surface our own stop as itself.
      for (Throwable c = e; c != null; c = c.getCause()) {
        if (c instanceof ResumeRefusedException refused) {
          LOG.error("stopping: {}", refused.getMessage());
          throw refused;
        }
      }
      throw e;
    }
  }

  /**
   * On the applying thread: each table commits on its own; a retry after an outage finds the tables
   * that already committed holding these offsets and skips them.
   */
  private BatchPipeline.Applied applyAll(List<RawRecord> records, Map<SinkEngine, List<RawRecord>> parts) {
    List<BatchPipeline.TableOutcome> outcomes = new java.util.ArrayList<>(parts.size());
    for (Map.Entry<SinkEngine, List<RawRecord>> part : parts.entrySet()) {
      BatchPipeline.TableOutcome outcome = apply(part.getKey(), part.getValue());
      if (outcome == null) {
        return new BatchPipeline.Applied(records, outcomes, true); // stopped in an outage: re-read from the tables' offsets
      }
      outcomes.add(outcome);
    }
    return new BatchPipeline.Applied(records, outcomes, false);
  }

  /**
   * On the applying thread: applies one table's part, retrying service faults while running.
   *
   * @return null when stopped during an outage: the batch is abandoned and re-read from the tables' offsets
   */
  private BatchPipeline.TableOutcome apply(SinkEngine engine, List<RawRecord> records) {
    Duration backoff = Duration.ofMillis(200);
    meter(engine);
    while (true) {
      long t0 = System.nanoTime();
      try {
        BatchResult result = engine.apply(records, deadLetters);
        outage.succeeded();
        return new BatchPipeline.Committed(engine, result, Duration.ofNanos(System.nanoTime() - t0));
      } catch (IncompatibleSchemaException e) {
        // The engine committed the records before the offending ones, with the table's offsets
        // pointing at them, and dead-lettered them once (see SinkEngine.apply).
        outage.succeeded();
        return new BatchPipeline.Stopped(engine, e, Duration.ofNanos(System.nanoTime() - t0));
      } catch (RejectedRecordsException | DeadLetterRefusedException | ConfigException e) {
        LOG.error("stopping: {}", e.getMessage());
        throw e;
      } catch (RuntimeException e) {
        if (FailureClassifier.isPermanent(e)) {
          // Retrying a refusal (permissions, a read-only or impossible location) only hides it.
          return new BatchPipeline.Refused(engine, "table " + engine.tableId() + " cannot be written, and retrying will not change that: "
              + FailureClassifier.describe(e), e);
        }
        outage.failed(e);
        metrics.commitFailed();
        if (!running) {
          LOG.warn("stopping during an outage: the open batch is abandoned and will be re-read from the table's offsets");
          return null;
        }
        sleep(backoff); // the polling thread keeps reporting lag meanwhile: an outage is when it matters most
        meter(engine);
        backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(30)) > 0 ? Duration.ofSeconds(30) : backoff.multipliedBy(2);
      }
    }
  }

  /** On the polling thread: acts on how each table's part of a batch ended, as the single-threaded loop did. */
  private void settle(BatchPipeline.Applied applied) {
    if (applied == null) {
      return;
    }
    for (BatchPipeline.TableOutcome outcome : applied.tables()) {
      SinkEngine engine = outcome.engine();
      if (outcome instanceof BatchPipeline.Committed c) {
        BatchResult result = c.result();
        metrics.batchCommitted(engine.tableId().toString(), result, c.took());
        if (result.snapshotId() != null) {
          startup.firstCommit();
          commitStamp = CommitStamp.of(java.time.Instant.now(), result.snapshotId());
          selfCompaction.committed(engine, result.snapshotId(), System.nanoTime());
        }
        commitToKafka(groupOffsets.afterTableCommit(result.nextOffsets(), positions()));
        LOG.info("batch: {} records, {} rows written, {} keys deleted, {} rejected, {} already applied -> {} snapshot {}",
            result.records(), result.rowsWritten(), result.keysDeleted(), result.rejected().size(), result.alreadyApplied(),
            engine.tableId(), result.snapshotId());
      } else if (outcome instanceof BatchPipeline.Stopped st) {
        IncompatibleSchemaException e = st.cause();
        if (e instanceof TableStoppedException stopped && stopped.committed() != null) {
          metrics.batchCommitted(engine.tableId().toString(), stopped.committed(), st.took());
          commitToKafka(stopped.committed().nextOffsets());
        }
        if (!tables.routesManyTables()) {
          metrics.tableStopped(engine.tableId().toString());
          LOG.error("stopping: {}. To resume: evolve the table by hand and restart, or skip the record with "
              + "`floe skip -c <config> --topic <topic> --partition <p> --offset <o>` (see README)", e.getMessage());
          throw e;
        }
        stopTable(engine, e.getMessage(), applied.records());
      } else if (outcome instanceof BatchPipeline.Refused r) {
        if (!tables.routesManyTables()) {
          LOG.error("stopping: {}", r.reason(), r.cause());
          throw new PermanentFailureException(r.reason(), r.cause());
        }
        LOG.error("{}", r.reason(), r.cause());
        stopTable(engine, r.reason(), applied.records());
      }
    }
    if (applied.abandoned()) {
      abandonOpen(); // the batch before it did not commit: neither may this one
    }
  }

  /**
   * One table of a routed sink cannot go on: its partitions are paused (and its open records
   * dropped, to be re-read from its offsets after a restart) while the other tables go on.
   */
  private void stopTable(SinkEngine engine, String reason, List<RawRecord> stoppedBatch) {
    recordWhereStopped(engine, stoppedBatch);
    stoppedTables.put(engine, reason);
    metrics.tableStopped(engine.tableId().toString());
    Set<TopicPartition> paused = pauseStoppedTables(consumer.assignment());
    wakeBacklog.forget(paused);
    LOG.error("table {} stopped: {}; its partitions {} are paused until the worker restarts, the other tables go on",
        engine.tableId(), reason, paused);
  }

  /**
   * Where a stopping table stands in each of its partitions: the table's offsets (read once), else
   * the first record of the batch it stopped in (that batch starts where the table stands), else the
   * consumer's position. Pausing leaves the position past records that were polled and dropped, so
   * the position alone would show a stopped table's lag as 0.
   */
  private void recordWhereStopped(SinkEngine engine, List<RawRecord> stoppedBatch) {
    SinkOffsets held;
    try {
      held = engine.offsets();
    } catch (RuntimeException e) {
      LOG.warn("could not read the offsets of stopped table {} (its lag is then counted from the open batch): {}",
          engine.tableId(), FailureClassifier.describe(e));
      held = SinkOffsets.NONE;
    }
    for (TopicPartition tp : consumer.assignment()) {
      if (tables.engineFor(tp.topic()) != engine) {
        continue;
      }
      long from = held.nextOffset(tp);
      if (from < 0) {
        from = stoppedBatch.stream().filter(r -> r.topicPartition().equals(tp)).mapToLong(RawRecord::offset).min()
            .orElse(consumer.position(tp));
      }
      stoppedFrom.put(tp, from);
    }
  }

  /** Registers a table's meters once, with the last commit the table holds for this sink; retried until the table can be read. */
  private void meter(SinkEngine engine) {
    if (metered.contains(engine)) {
      return;
    }
    String table = engine.tableId().toString();
    try {
      SinkOffsets held = engine.offsets();
      Long snapshot = held.snapshotId();
      metrics.tableResolved(table, snapshot, snapshot == null ? null : engine.table().snapshot(snapshot).timestampMillis());
      metered.add(engine);
    } catch (RuntimeException e) {
      metrics.tableResolved(table, null, null); // meters now (freshness 0 fires the alert), the last commit once readable
      LOG.debug("could not read table {} for its metrics yet: {}", table, e.toString());
    }
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
    dropOpen(paused); // the open batch: its records of a stopped table lie past the stop point
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

  /**
   * The brokers refused the consumer group protocol before anything was assigned: the consumer is
   * replaced by a classic one, which joins again (see {@link GroupProtocolChoice#refusedBecause}).
   */
  private void joinWithClassicProtocol(ApiException refusal) {
    KafkaConsumer<byte[], SharedSchemas.Held> refused = consumer;
    groupProtocol = groupProtocol.refusedBecause(refusal);
    if (refusal instanceof UnsupportedVersionException) {
      LOG.warn("joining with the classic group protocol: {}", groupProtocol.why()); // costs every wake-up: worth a look
    } else {
      LOG.info("joining with the classic group protocol: {}", groupProtocol.why());
    }
    consumer = consumers.apply(groupProtocol.first());
    refused.close(CloseOptions.timeout(Duration.ZERO));
    subscribe();
  }

  private void subscribe() {
    LOG.info("joining group {} with the {} group protocol ({})", spec.source().groupId(), lowerCase(groupProtocol.first()), groupProtocol.why());
    ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        // The batch in flight commits before the partitions go: their next owner resumes from the
        // table's offsets, which must then include it. The open batch's records of them are dropped.
        finishInFlightInRebalance();
        dropOpen(partitions);
        heldBack.removeAll(partitions);
        wakeBacklog.forget(partitions);
        groupOffsets.forget(partitions);
        metrics.forget(partitions);
        owned = Set.copyOf(consumer.assignment().stream().filter(tp -> !partitions.contains(tp)).toList());
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> partitions) {
        joined = false; // the group dropped this member (its session expired): not ready until it rejoins
        onPartitionsRevoked(partitions);
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        // (cooperative rebalances assign without revoking) the engines are then this thread's; only the
        // warm-up of a starting worker (its table's index loading) goes on, and the offsets are read apart from it
        boolean beside = pipeline.busyWithoutRecords();
        if (!beside) {
          finishInFlightInRebalance();
        }
        wakeBacklog.assigned(seekToTableOffsets(partitions, beside)); // the log ends it read: the backlog waiting now
        wakeBacklog.forget(pauseStoppedTables(partitions)); // a rebalance resumes what it hands back
        warmUp(partitions);
        owned = Set.copyOf(consumer.assignment());
        if (!partitions.isEmpty()) {
          startup.mark("assigned"); // the consumer protocol may hand a member an empty assignment before its partitions
        }
        joined = true; // called after every rebalance, with nothing too: a member with no partitions is ready
        kafka.reached();
      }
    };
    if (spec.source().topicPattern() != null && !spec.source().topicPattern().isBlank()) {
      consumer.subscribe(Pattern.compile(spec.source().topicPattern()), listener);
    } else {
      consumer.subscribe(spec.source().topics(), listener);
    }
    subscribed = true;
  }

  /**
   * Seeks each assigned partition to the table's offset (the truth), or where {@code source.startFrom}
   * says for partitions the table holds nothing for; stops, naming the partitions, where resuming
   * would silently skip or re-read records (see {@link StartPosition}). Returns the log ends it
   * read (last stable offsets), or none when Kafka did not answer in time.
   */
  private Map<TopicPartition, Long> seekToTableOffsets(Collection<TopicPartition> partitions, boolean besideWarmUp) {
    if (partitions.isEmpty()) {
      return Map.of();
    }
    Map<SinkEngine, SinkOffsets> held = new HashMap<>();
    Map<TopicPartition, Long> tableNext = new HashMap<>();
    Set<TopicPartition> unknown = new HashSet<>();
    for (TopicPartition tp : partitions) {
      long next = held.computeIfAbsent(tables.engineFor(tp.topic()), besideWarmUp ? SinkEngine::offsetsReadApart : SinkEngine::offsets)
          .nextOffset(tp);
      tableNext.put(tp, next);
      if (next < 0) {
        unknown.add(tp);
      }
    }
    Map<TopicPartition, OffsetAndMetadata> committed = unknown.isEmpty() ? Map.of() : consumer.committed(unknown);
    Map<TopicPartition, Long> starts = Map.of();
    Map<TopicPartition, Long> ends = Map.of();
    try {
      starts = consumer.beginningOffsets(partitions, RANGE_TIMEOUT);
      ends = consumer.endOffsets(partitions, RANGE_TIMEOUT);
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      // Not fatal: with auto.offset.reset=none an offset outside the log still fails the first fetch.
      LOG.warn("could not read the log ranges of {} to check the table's offsets against them: {}", partitions, e.toString());
    }
    Map<String, List<String>> outOfRange = new LinkedHashMap<>();
    Map<String, List<String>> startFromRequired = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      OffsetAndMetadata group = committed.get(tp);
      StartPosition.Decision d = StartPosition.decide(tp, tableNext.get(tp), group == null ? null : group.offset(),
          starts.get(tp), ends.get(tp), spec.source().startFrom());
      String table = tables.engineFor(tp.topic()).tableId().toString();
      if (d instanceof StartPosition.Seek s) {
        consumer.seek(tp, s.offset());
      } else if (d instanceof StartPosition.FromBeginning) {
        consumer.seekToBeginning(List.of(tp));
      } else if (d instanceof StartPosition.FromEnd) {
        consumer.seekToEnd(List.of(tp));
      } else if (d instanceof StartPosition.Refused r) {
        (r.kind() == StartPosition.Kind.OUT_OF_RANGE ? outOfRange : startFromRequired)
            .computeIfAbsent(table, t -> new java.util.ArrayList<>()).add(r.problem());
      }
    }
    if (!outOfRange.isEmpty()) {
      var first = outOfRange.entrySet().iterator().next();
      throw ResumeRefusedException.outOfRange(first.getKey(), first.getValue());
    }
    if (!startFromRequired.isEmpty()) {
      var first = startFromRequired.entrySet().iterator().next();
      throw ResumeRefusedException.startFromRequired(first.getKey(), spec.source().groupId(), first.getValue());
    }
    held.forEach((engine, offsets) -> LOG.info("assigned partition(s) of {}; resuming from the table's offsets {}", engine.tableId(), offsets));
    return ends;
  }

  /**
   * An out-of-range fetch (auto.offset.reset is none): records were deleted under the worker, or
   * the topic re-created, while it ran. A stop like the one on assignment, never a silent reset.
   */
  private ResumeRefusedException outOfRange(OffsetOutOfRangeException e) {
    // One fetch answer names the partitions it carried; a re-created topic usually moved them all, and
    // the stop should name every partition a person must re-snapshot, not whichever answered first.
    Map<TopicPartition, Long> positions = new java.util.LinkedHashMap<>(e.offsetOutOfRangePartitions());
    for (TopicPartition tp : consumer.assignment()) {
      if (!positions.containsKey(tp)) {
        try {
          positions.put(tp, consumer.position(tp, RANGE_TIMEOUT));
        } catch (RuntimeException unknown) {
          LOG.debug("position of {} unknown: {}", tp, unknown.toString());
        }
      }
    }
    Map<TopicPartition, Long> starts = Map.of();
    Map<TopicPartition, Long> ends = Map.of();
    try {
      starts = consumer.beginningOffsets(positions.keySet(), RANGE_TIMEOUT);
      ends = consumer.endOffsets(positions.keySet(), RANGE_TIMEOUT);
    } catch (RuntimeException unreadable) {
      LOG.debug("log ranges unreadable: {}", unreadable.toString());
    }
    List<String> problems = new java.util.ArrayList<>();
    String table = null;
    for (Map.Entry<TopicPartition, Long> f : positions.entrySet()) {
      boolean fetched = e.offsetOutOfRangePartitions().containsKey(f.getKey());
      table = table != null ? table : tables.engineFor(f.getKey().topic()).tableId().toString();
      Long start = starts.get(f.getKey());
      Long end = ends.get(f.getKey());
      StartPosition.Decision d = StartPosition.decide(f.getKey(), f.getValue(), null, start, end, null);
      if (d instanceof StartPosition.Refused r) {
        problems.add(r.problem());
      } else if (fetched) {
        problems.add(f.getKey() + ": the worker's position " + f.getValue() + " is outside the log [" + start + ", " + end + ")");
      }
    }
    return ResumeRefusedException.outOfRange(table, problems);
  }

  private void updateLag() {
    Set<TopicPartition> assigned = consumer.assignment();
    if (assigned.isEmpty()) {
      kafka.probe(LAG_TIMEOUT); // nothing to read the lag of: ask the cluster directly
      return;
    }
    try {
      Map<TopicPartition, Long> ends = consumer.endOffsets(assigned, LAG_TIMEOUT);
      kafka.reached();
      for (TopicPartition tp : assigned) {
        SinkEngine engine = tables.engineFor(tp.topic());
        if (!pipeline.busy()) {
          meter(engine); // reads the table: never beside the applying thread, which meters the tables it applies to
        }
        long position = consumer.position(tp, LAG_TIMEOUT);
        long end = ends.getOrDefault(tp, position);
        if (stoppedTables.containsKey(engine)) {
          // paused: nothing applies, so the lag is all that the table has not taken
          metrics.lag(tp, Math.max(0, end - stoppedFrom.getOrDefault(tp, position)));
          continue;
        }
        long uncommitted = batch.uncommitted(tp) + pipeline.uncommitted(tp);
        metrics.lag(tp, Math.max(0, end - position + uncommitted));
      }
    } catch (WakeupException e) {
      running = false;
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      kafka.failed(e); // the broker did not answer: an outage, logged once and counted
    } catch (RuntimeException e) {
      LOG.debug("lag read failed: {}", e.toString());
    }
  }

  private static RawRecord toRaw(TopicPartition tp, ConsumerRecord<byte[], SharedSchemas.Held> r) {
    Header[] polled = r.headers().toArray();
    Map<String, byte[]> headers = polled.length == 0 ? Map.of() : new LinkedHashMap<>();
    for (Header h : polled) {
      headers.put(h.key(), h.value());
    }
    return RawRecord.polled(tp, r.offset(), r.key(), r.value(), headers);
  }

  /** A protocol as Kafka's settings spell it. */
  private static String lowerCase(GroupProtocol protocol) {
    return protocol.name().toLowerCase(java.util.Locale.ROOT);
  }

  private Properties consumerProperties(Map<String, String> extra, String instance, GroupProtocol protocol) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, spec.source().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, spec.source().groupId());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.putAll(KafkaClientSettings.fetching());
    // A sink reads topics, it never makes them: a deleted source topic must not come back empty
    // (with the broker's default partitions) just because the worker asked for its metadata.
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "floe-" + spec.sinkId());
    if (instance != null && !instance.isBlank()) {
      // Static membership: a worker restarted under the same id (a container restart keeps the pod
      // name) takes its partitions back at once, fencing its dead predecessor, instead of waiting
      // session.timeout.ms for the group to notice the old member is gone.
      p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance);
    }
    p.putAll(extra);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, lowerCase(protocol));
    // Never reset silently: an offset outside the log raises (OffsetOutOfRangeException), and where
    // the table holds nothing the worker seeks itself (source.startFrom), so no reset policy applies.
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    return p;
  }

  private Properties producerProperties(Map<String, String> extra) {
    Properties p = KafkaClientSettings.withoutConsumerKeys(extra);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, spec.source().bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "floe-dlq-" + spec.sinkId());
    return p;
  }

  /** Sleeps, but returns soon after stop(). */
  private void sleepWhileRunning(Duration d) {
    long end = System.nanoTime() + d.toNanos();
    while (running && System.nanoTime() < end) {
      sleep(Duration.ofMillis(Math.min(100, Math.max(1, (end - System.nanoTime()) / 1_000_000))));
    }
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
    // A static member stays in the group on a plain close (Kafka expects it back), so its partitions
    // would sit idle for session.timeout.ms; a worker that is closed is going away (SIGTERM, scale
    // down, a stop): leave, so the partitions move to the other workers at once (KIP-1092). Only a
    // crash, which never gets here, keeps the membership for the restarted container to reclaim.
    pipeline.close();
    aheadDecoder.close();
    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)).withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
      rereader.close();
    }
    kafka.close();
  }
}
