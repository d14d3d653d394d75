package dev.floe.worker.engine;

import dev.floe.worker.apply.ChangeResolver;
import dev.floe.worker.apply.DataFileWriters;
import dev.floe.worker.apply.EqualityDeltaWriter;
import dev.floe.worker.apply.EventPacker;
import dev.floe.worker.apply.IncompatibleSchemaException;
import dev.floe.worker.apply.LiveSpecs;
import dev.floe.worker.apply.MoveLedger;
import dev.floe.worker.apply.MoveLedgerFiles;
import dev.floe.worker.apply.PackedResolver;
import dev.floe.worker.apply.PersistedIndex;
import dev.floe.worker.apply.PositionDeltaWriter;
import dev.floe.worker.apply.PrimaryKeyIndex;
import dev.floe.worker.apply.TableLayout;
import dev.floe.worker.apply.TableProvisioner;
import dev.floe.worker.apply.TruncatePlanner;
import dev.floe.worker.apply.WriterWarmUp;
import dev.floe.worker.commit.BatchCommitter;
import dev.floe.worker.commit.ConcurrentSinkCommitException;
import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.commit.SinkOffsets;
import dev.floe.worker.commit.StopPoint;
import dev.floe.worker.config.OnError;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.TableNameTemplate;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.ChangeEvent;
import dev.floe.worker.decode.ChangeDecoder;
import dev.floe.worker.decode.ChangeDecoders;
import dev.floe.worker.decode.Decoded;
import dev.floe.worker.decode.EventSchema;
import dev.floe.worker.decode.Op;
import dev.floe.worker.decode.PackedChange;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.RejectedRecord;
import dev.floe.worker.fold.BatchFolder;
import dev.floe.worker.fold.FoldedBatch;
import dev.floe.worker.maintain.DefaultFiller;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies batches of Debezium records to one Iceberg table, exactly once: skip what the table
 * already holds, decode, fold per key, resolve against stored rows, write, and commit files and
 * offsets in one snapshot. A commit that loses a race is retried against the new table state.
 */
public final class SinkEngine {
  private static final Logger LOG = LoggerFactory.getLogger(SinkEngine.class);
  /** Whether this process warmed its Parquet writer up already (see {@link #warmUpWriter}). */
  private static final java.util.concurrent.atomic.AtomicBoolean WRITER_WARMED_UP = new java.util.concurrent.atomic.AtomicBoolean();
  private static final int MAX_ATTEMPTS = 10;

  private final SinkSpec spec;
  /** The catalog, connected by the time the engine first needs it (a worker connects it while its Kafka clients start). */
  private final Supplier<Catalog> catalog;
  private final TableIdentifier tableId;
  /** When the primary-key index is persisted. */
  private final IndexCopies indexCopies;
  private final ChangeDecoder decoder;
  private Table table;
  private TableLayout layout;
  private PrimaryKeyIndex index;
  private int indexBuilds;
  private int indexLoads;
  /** Offsets of batches that changed nothing before the table existed; recorded with the first commit. */
  private final Map<TopicPartition, Long> carried = new HashMap<>();
  /** Stop points this engine already sent to the dead-letter topic, so a retried commit does not send them again. */
  private final Set<StopPoint> deadLettered = new HashSet<>();
  private Runnable beforeCommit = () -> {};
  private String movesFile;
  private TableLayout movesLayout;
  private MoveLedger movesRead;
  /** Whether stored values come from the index's merge state (false: stored rows read whole, or scanned in the equality mode: the reference). */
  private boolean mergeStateFromIndex = true;
  private final PhaseTimes phases = new PhaseTimes();
  /** Whether the equality mode's current batch takes stored values from the index (an unpartitioned table). */
  private boolean equalityIndexed;
  /**
   * Whether batches of the packed shape are held and applied packed (false: the general path, the
   * reference); {@code -Dfloe.packedBatches=false} turns it off for a process (an escape hatch, and
   * the benchmark's A/B).
   */
  private boolean packedBatches = !"false".equals(System.getProperty("floe.packedBatches"));
  /** The packer of the current layout, read by the decoding thread; null while batches take the general path. */
  private volatile EventPacker packer;
  /** The layout {@link #packer} was made for (the applying thread's). */
  private TableLayout packerLayout;
  private int packedBatchesApplied;

  /** An engine decoding the source's format ({@code source.format}); secrets from the environment. */
  public SinkEngine(SinkSpec spec, Catalog catalog) {
    this(spec, catalog, ChangeDecoders.of(spec.source(), SecretResolver.fromEnvironment()));
  }

  /** @param decoders the decoders of the source's wire format (shared by the engines of one sink) */
  public SinkEngine(SinkSpec spec, Catalog catalog, ChangeDecoders decoders) {
    this(spec, () -> catalog, decoders);
  }

  /** As {@link #SinkEngine(SinkSpec, Catalog, ChangeDecoders)}, with a catalog that is asked for only when the table is first loaded. */
  public SinkEngine(SinkSpec spec, Supplier<Catalog> catalog, ChangeDecoders decoders) {
    this.spec = spec;
    this.catalog = catalog;
    if (TableNameTemplate.isTemplate(spec.table().name())) {
      throw new IllegalArgumentException("table name " + spec.table().name() + " is a template: route topics with TableRouter");
    }
    this.tableId = TableIdentifier.parse(spec.table().name());
    this.indexCopies = new IndexCopies(tableId);
    this.decoder = decoders.forTable(spec.table().primaryKey());
  }

  /** A hook between planning a batch and committing it (tests use it to let another writer commit in between). */
  public SinkEngine beforeCommit(Runnable hook) {
    this.beforeCommit = hook;
    return this;
  }

  /**
   * Reads every stored row a merge rule or placeholder needs whole, as the general path did before
   * the index held merge state: the reference a property test compares the fast path to.
   */
  public SinkEngine readingStoredRowsWhole() {
    this.mergeStateFromIndex = false;
    return this;
  }

  /**
   * Holds and applies every batch through the general fold and resolver, its events unpacked: the
   * reference a property test compares packed batches ({@link PackedResolver}) to.
   */
  public SinkEngine withoutPackedBatches() {
    this.packedBatches = false;
    this.packer = null;
    return this;
  }

  /** How many batches this engine applied packed ({@link PackedResolver}), so far. */
  public int packedBatchesApplied() {
    return packedBatchesApplied;
  }

  /** Time spent per phase of applying batches, so far. */
  public PhaseTimes phaseTimes() {
    return phases;
  }

  /** The primary-key index's bytes for keys and locations, and for merge state; null when there is none. */
  public long[] indexFootprintBytes() {
    return index == null ? null : index.footprintBytes();
  }

  /** The offsets the table holds for this sink (empty when the table does not exist yet). */
  public SinkOffsets offsets() {
    return loadTable() ? OffsetLedger.read(table, spec.sinkId()) : SinkOffsets.NONE;
  }

  /**
   * The offsets the table holds now (as {@link #offsets}), read through a table instance of the
   * caller's own: safe on another thread while this engine warms up ({@link #warmUp}), which owns
   * the engine's table meanwhile. A worker that starts seeks with it while its index still loads.
   */
  public SinkOffsets offsetsReadApart() {
    try {
      return OffsetLedger.read(catalog.get().loadTable(tableId), spec.sinkId());
    } catch (NoSuchTableException e) {
      return SinkOffsets.NONE;
    }
  }

  /** The table this engine keeps equal to its source. */
  public TableIdentifier tableId() {
    return tableId;
  }

  /** The table, once it exists. */
  public Table table() {
    loadTable();
    return table;
  }

  /**
   * Applies one batch. Records the table already holds (by this sink's offsets) are skipped, so a
   * batch replayed after a crash changes nothing.
   *
   * <p>A record whose schema the table cannot follow stops its partition there: the batch is cut
   * before it ({@link BatchCut}), what precedes the cut commits together with the stop point, the
   * offending record goes to the dead-letter topic once (a stop point the table already holds is
   * not sent again), and a {@link TableStoppedException} says so.
   *
   * @throws TableStoppedException when the source schema changed in a way the table cannot follow
   * @throws RejectedRecordsException when records were rejected and the sink is configured to fail
   */
  public BatchResult apply(List<RawRecord> records, DeadLetters deadLetters) {
    List<RawRecord> applicable = records;
    Map<TopicPartition, StopPoint> stops = new LinkedHashMap<>();
    Map<TopicPartition, RawRecord> stoppedAt = new LinkedHashMap<>();
    String reason = null;
    while (true) {
      try {
        BatchResult result = applyWithRetries(applicable, deadLetters, new Stops(stops, stoppedAt, deadLetters));
        if (stops.isEmpty()) {
          return result;
        }
        throw new TableStoppedException(reason + "; stopped at " + stops.values().stream().map(p -> p.partition() + "@" + p.offset()).toList()
            + " (the records before it are committed)", List.copyOf(stoppedAt.values()), result, List.copyOf(stops.values()));
      } catch (TableStoppedException e) {
        throw e;
      } catch (IncompatibleSchemaException e) {
        BatchCut cut = BatchCut.at(applicable, e.offending());
        if (cut.applicable().size() == applicable.size()) {
          throw e; // nothing of this batch offends: no cut can help
        }
        reason = reason == null ? e.getMessage() : reason;
        for (RawRecord r : cut.stoppedAt()) {
          stops.putIfAbsent(r.topicPartition(), new StopPoint(r.topicPartition(), r.offset(), e.getMessage()));
          stoppedAt.putIfAbsent(r.topicPartition(), r);
        }
        applicable = cut.applicable(); // what precedes the cut may still meet another incompatible schema: cut again
      }
    }
  }

  /**
   * Decodes a record ahead of its batch, on any thread (the decoder's caches are thread-safe); the
   * caller keeps what this returns on the record ({@link RawRecord#keepDecoded}) and apply takes it
   * from there. Only what decodes without the table's schema is kept: that result does not depend on
   * the table, so it is the one apply would get whatever schema the batches before it evolve the
   * table to. JSON without schema, and rejections, give null: apply decodes those against the table
   * as it then is.
   */
  public Decoded decodeAhead(RawRecord record) {
    Decoded d = decoder.decode(record, null);
    return d instanceof Decoded.Rejected ? null : packed(d);
  }

  /** The decoded event packed, where batches of the current layout are applied packed; else as it is. */
  private Decoded packed(Decoded d) {
    EventPacker p = packer;
    return p == null ? d : p.pack(d);
  }

  /** Makes {@link #packer} the current layout's (on the applying thread, whenever the layout may have changed). */
  private void refreshPacker() {
    if (!packedBatches || layout == null || table == null) {
      packer = null;
      packerLayout = null;
    } else if (packerLayout != layout) {
      packerLayout = layout;
      packer = EventPacker.of(layout, positional(), mergeStateFromIndex);
    }
  }

  private BatchResult applyWithRetries(List<RawRecord> records, DeadLetters deadLetters, Stops stops) {
    RuntimeException last = null;
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      try {
        return applyOnce(records, deadLetters, attempt, stops);
      } catch (ConcurrentSinkCommitException | CommitFailedException | ValidationException e) {
        last = e;
        LOG.info("commit to {} lost a race (attempt {}): {}; replanning against the new table state", tableId, attempt, e.getMessage());
        backoff(attempt);
      }
    }
    throw new IllegalStateException("could not commit to " + tableId + " after " + MAX_ATTEMPTS + " attempts", last);
  }

  /** The stop points of a batch, and their dead-lettering: once per stop point, and never for one the table already holds. */
  private final class Stops {
    final Map<TopicPartition, StopPoint> points;
    final Map<TopicPartition, RawRecord> records;
    final DeadLetters deadLetters;

    Stops(Map<TopicPartition, StopPoint> points, Map<TopicPartition, RawRecord> records, DeadLetters deadLetters) {
      this.points = points;
      this.records = records;
      this.deadLetters = deadLetters;
    }

    /** Stop points the table does not hold yet. */
    List<StopPoint> fresh(SinkOffsets held) {
      return points.values().stream().filter(p -> !held.stoppedAt(p.partition(), p.offset())).toList();
    }

    /**
     * Sends the fresh stop points' records to the dead-letter topic, before the commit that
     * records them: a crash in between sends one again (at least once), never loses one.
     */
    void deadLetter(SinkOffsets held) {
      List<StopPoint> sending = fresh(held).stream().filter(deadLettered::add).toList();
      if (sending.isEmpty()) {
        return;
      }
      try {
        deadLetters.send(sending.stream().map(p -> new RejectedRecord(records.get(p.partition()), p.reason())).toList());
      } catch (RuntimeException e) {
        sending.forEach(deadLettered::remove); // not sent: the next attempt sends them
        throw e;
      }
    }
  }

  private BatchResult applyOnce(List<RawRecord> records, DeadLetters deadLetters, int attempt, Stops stops) {
    boolean exists = loadTable();
    Long baseSnapshot = exists && table.currentSnapshot() != null ? table.currentSnapshot().snapshotId() : null;
    SinkOffsets held = exists ? OffsetLedger.read(table, spec.sinkId()) : SinkOffsets.NONE;

    List<RawRecord> fresh = new ArrayList<>(records.size());
    Map<TopicPartition, Long> next = new HashMap<>();
    TopicPartition partition = null;
    long heldNext = 0;
    long runLast = -1; // the run's highest fresh offset: merged into next once per run, not boxed per record
    for (RawRecord r : records) {
      if (r.topicPartition() != partition) { // records come in runs of one partition: one ledger lookup per run
        if (runLast >= 0) {
          next.merge(partition, runLast + 1, Math::max);
        }
        partition = r.topicPartition();
        heldNext = held.nextOffset(partition);
        runLast = -1;
      }
      if (r.offset() >= heldNext) {
        fresh.add(r);
        runLast = Math.max(runLast, r.offset());
      }
    }
    if (runLast >= 0) {
      next.merge(partition, runLast + 1, Math::max);
    }
    if (fresh.isEmpty()) {
      if (exists && !stops.fresh(held).isEmpty()) {
        return commitStopsOnly(records.size(), baseSnapshot, held, stops, attempt);
      }
      return BatchResult.alreadyApplied(records.size());
    }

    long t = System.nanoTime();
    List<ChangeEvent> events = new ArrayList<>(fresh.size());
    List<PackedChange> packedChanges = new ArrayList<>();
    List<RejectedRecord> rejected = new ArrayList<>();
    int tombstones = 0;
    SchemaSurvey schemas = new SchemaSurvey();
    // events are never changed by folding: one decoded ahead serves every attempt
    Schema tableSchema = exists ? table.schema() : null;
    refreshPacker();
    EventPacker packing = packer;
    Decoded[] decoded = BatchDecode.decode(fresh, r -> decoder.decode(r, tableSchema));
    if (packing != null) {
      for (int i = 0; i < decoded.length; i++) {
        decoded[i] = packing.pack(decoded[i]); // those decoded here, or ahead before this layout's packer was there
      }
    }
    boolean applyPacked = packing != null && baseSnapshot != null && held.truncateLsn() == null && held.movesFile() == null
        && allPackedBy(decoded, packing);
    for (Decoded d : decoded) {
      if (d instanceof PackedChange p) {
        if (applyPacked) {
          packedChanges.add(p);
          schemas.add(p.schema(), p.lsnOrNone());
        } else {
          ChangeEvent e = p.toEvent(); // a batch not all of the packed shape, or of another layout: the general path
          events.add(e);
          schemas.add(e);
        }
      } else if (d instanceof ChangeEvent e) {
        events.add(e);
        schemas.add(e);
      } else if (d instanceof Decoded.Rejected rj) {
        rejected.add(rj.rejected());
      } else {
        tombstones++;
      }
    }

    prepareTable(events, schemas.lowestLsns());
    if (!packedChanges.isEmpty() && layout != packing.layout()) {
      packedChanges.forEach(p -> events.add(p.toEvent())); // the table evolved under them: the general path
      packedChanges.clear();
    }
    if (table != null && DefaultFiller.finishPending(table)) {
      return applyOnce(records, deadLetters, attempt, stops); // old rows got a new column's default: plan on the filled table
    }
    if (table == null) {
      // Only truncates, tombstones or rejects, and no table to empty or to hold offsets yet.
      if (!rejected.isEmpty()) {
        if (spec.onError() == OnError.FAIL) {
          throw new RejectedRecordsException(rejected);
        }
        deadLetters.send(rejected);
      }
      next.forEach((tp, o) -> carried.merge(tp, o, Math::max));
      return new BatchResult(null, records.size(), records.size() - fresh.size(), tombstones, events.size(),
          0, false, 0, 0, List.copyOf(rejected), Map.copyOf(next), attempt);
    }
    t = phases.add("decode", t);
    if (!packedChanges.isEmpty()) {
      List<PackedChange> ordered = BatchFolder.inLogOrder(packedChanges, PackedChange::record);
      t = phases.add("fold", t);
      PrimaryKeyIndex index = index(baseSnapshot);
      t = phases.add("index", t);
      PackedResolver.Resolved resolved = PackedResolver.resolve(ordered, packing, index);
      t = phases.add("resolve", t);
      if (resolved != null) {
        sendRejected(rejected, deadLetters);
        ChangeResolver.Changes changes = resolved.changes();
        EqualityDeltaWriter.Written written =
            PositionDeltaWriter.write(table, layout, index, changes.rows(), changes.deletes(), changes.deletePlaces(), baseSnapshot);
        t = phases.add("write", t);
        packedBatchesApplied++;
        return commit(new Planned(changes, written, MoveLedger.EMPTY, null, null, 0, false, resolved.deletedKeys(), packedChanges.size()),
            records, fresh.size(), tombstones, rejected, next, baseSnapshot, held, stops, attempt, t);
      }
      // a merge the packed resolver does not make (a sum out of its column's range): the general path words it per record
      ordered.forEach(p -> events.add(p.toEvent()));
    }
    FoldedBatch folded = BatchFolder.fold(events, layout::project, layout::projectsAsItIs, layout.rules(), held.truncateLsn());
    t = phases.add("fold", t);
    rejected.addAll(folded.rejected());
    sendRejected(rejected, deadLetters);

    MoveLedger moves = moves(held.movesFile());
    TruncatePlanner.Plan truncate = folded.truncates() && baseSnapshot != null
        ? TruncatePlanner.plan(table, baseSnapshot, layout, folded.truncateLsn())
        : null;
    EqualityDeltaWriter.Written written;
    ChangeResolver.Changes changes;
    if (positional()) {
      PrimaryKeyIndex index = index(baseSnapshot);
      t = phases.add("index", t);
      changes = ChangeResolver.resolve(baseSnapshot, layout, folded, truncate, true,
          index == null ? null : index.storedRows(table, layout, mergeStateFromIndex), moves);
      rejectUnmerged(changes, events, rejected, deadLetters);
      t = phases.add("resolve", t);
      written = baseSnapshot == null
          ? new EqualityDeltaWriter.Written(EqualityDeltaWriter.writeRowsTracked(table, layout, changes.rows()), List.of(), List.of(), Set.of())
          : PositionDeltaWriter.write(table, layout, index, changes.rows(), changes.deletes(), changes.deletePlaces(), baseSnapshot);
    } else {
      List<PartitionSpec> deleteSpecs = LiveSpecs.of(table, baseSnapshot);
      boolean needPartition = LiveSpecs.needPartition(deleteSpecs);
      // Unpartitioned, the deletes need only keys: stored values come from the index as in the position
      // mode instead of a scan of the table per batch. Partitioned, each delete needs its stored row's partition: scan.
      equalityIndexed = !needPartition && mergeStateFromIndex && baseSnapshot != null;
      if (!equalityIndexed) {
        this.index = null; // not kept current by this batch
      }
      PrimaryKeyIndex index = equalityIndexed ? index(baseSnapshot) : null;
      t = phases.add("index", t);
      changes = ChangeResolver.resolve(baseSnapshot, layout, folded, truncate, needPartition,
          index == null ? ChangeResolver.scanning(table, baseSnapshot, layout) : index.storedRows(table, layout, true),
          moves);
      rejectUnmerged(changes, events, rejected, deadLetters);
      t = phases.add("resolve", t);
      written = EqualityDeltaWriter.write(table, layout, changes.rows(), changes.deletes(), deleteSpecs);
    }
    t = phases.add("write", t);
    int deleted = (int) folded.keys().values().stream().filter(f -> !f.exists()).count();
    return commit(new Planned(changes, written, moves, truncate, folded.truncateLsn(), folded.supersededByTruncate(), folded.truncates(),
        deleted, events.size()), records, fresh.size(), tombstones, rejected, next, baseSnapshot, held, stops, attempt, t);
  }

  /**
   * A batch planned and written, to commit: its changes and files, the move ledger it read, what a
   * truncate in it removes (null when none), and the counts its result reports.
   */
  private record Planned(ChangeResolver.Changes changes, EqualityDeltaWriter.Written written, MoveLedger moves,
      TruncatePlanner.Plan truncate, Long truncateLsn, int supersededByTruncate, boolean truncates, int deletedKeys, int events) {}

  /**
   * Rejects the records of the keys whose values in this batch could not combine with their stored
   * row ({@link ChangeResolver.Changes#unmerged}: a sum out of its column's range), each with the
   * reason: their stored rows stay as they are, and no retry is made, since none would combine.
   */
  private void rejectUnmerged(ChangeResolver.Changes changes, List<ChangeEvent> events, List<RejectedRecord> rejected,
      DeadLetters deadLetters) {
    if (changes.unmerged().isEmpty()) {
      return;
    }
    Set<RawRecord> already = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    rejected.forEach(r -> already.add(r.record()));
    List<RejectedRecord> out = new ArrayList<>();
    for (ChangeEvent e : events) {
      if (e.op() == Op.TRUNCATE || already.contains(e.record())) {
        continue;
      }
      String reason;
      try {
        reason = changes.unmerged().get(layout.project(e).key());
      } catch (IllegalArgumentException notProjected) {
        continue; // the fold rejected it already
      }
      if (reason != null) {
        out.add(new RejectedRecord(e.record(), "merge rule failed against the stored row of its key (" + reason
            + "): the key's changes in this batch are rejected and its stored row is kept"));
      }
    }
    rejected.addAll(out);
    sendRejected(out, deadLetters);
  }

  /** Sends a batch's rejections to the dead-letter topic, or fails the batch with them ({@code on-error: fail}). */
  private void sendRejected(List<RejectedRecord> rejected, DeadLetters deadLetters) {
    if (!rejected.isEmpty()) {
      if (spec.onError() == OnError.FAIL) {
        throw new RejectedRecordsException(rejected);
      }
      deadLetters.send(rejected);
    }
  }

  /** Commits a planned batch's files with its offsets in one snapshot, then keeps the index current. */
  private BatchResult commit(Planned planned, List<RawRecord> records, int fresh, int tombstones, List<RejectedRecord> rejected,
      Map<TopicPartition, Long> next, Long baseSnapshot, SinkOffsets held, Stops stops, int attempt, long t) {
    ChangeResolver.Changes changes = planned.changes();
    EqualityDeltaWriter.Written written = planned.written();
    MoveLedger moves = planned.moves();
    TruncatePlanner.Plan truncate = planned.truncate();
    List<DataFile> removedData = truncate == null ? List.of() : truncate.dataFiles();
    List<DeleteFile> removedDeletes = new ArrayList<>(written.replacedDeleteFiles());
    if (truncate != null) {
      removedDeletes.addAll(truncate.deleteFiles());
    }
    Map<TopicPartition, Long> committing = new HashMap<>(carried);
    next.forEach((tp, o) -> committing.merge(tp, o, Math::max));
    boolean movesChanged = !(moves.isEmpty() && changes.moves().isEmpty()) && !changes.moves().encode(layout).equals(moves.encode(layout));
    String movesFile = movesChanged ? MoveLedgerFiles.write(table, changes.moves(), layout) : held.movesFile();
    BatchCommitter.Commit commit = new BatchCommitter.Commit(
        written.dataFiles(), written.deleteFiles(), removedData, removedDeletes, written.referencedDataFiles(), committing,
        planned.truncateLsn(), movesFile, !changes.repairsOtherKeys(), layout.schema().schemaId(),
        List.copyOf(stops.points.values()), List.of());
    long snapshotId;
    try {
      stops.deadLetter(held);
      beforeCommit.run();
      snapshotId = BatchCommitter.commit(table, spec.sinkId(), baseSnapshot, held, commit);
    } catch (CommitStateUnknownException e) {
      throw e; // the commit may have landed: its files must stay; a retry finds out from the offsets
    } catch (RuntimeException e) {
      deleteQuietly(written);
      if (movesChanged && movesFile != null) {
        deleteFile(movesFile);
      }
      throw e;
    }
    carried.clear();
    t = phases.add("commit", t);
    if (positional() || equalityIndexed) {
      keepIndexCurrent(baseSnapshot, snapshotId, changes, written, truncate);
      phases.add("index", t);
    }
    refreshPacker(); // the decoding thread packs the next batches by this batch's layout (the first one's too)
    LOG.debug("committed snapshot {} to {}: {} records, {} rows, {} deletes, {} rejected",
        snapshotId, tableId, fresh, changes.rows().size(), planned.deletedKeys(), rejected.size());
    return new BatchResult(snapshotId, records.size(), records.size() - fresh, tombstones, planned.events(),
        planned.supersededByTruncate(), planned.truncates(), changes.rows().size(), planned.deletedKeys(),
        List.copyOf(rejected), Map.copyOf(next), attempt);
  }

  /**
   * Whether a batch is applied packed: it holds packed changes, each packed by {@code packing}, and
   * no event the packer left as decoded (a truncate, a key change, a placeholder, another shape).
   */
  private static boolean allPackedBy(Decoded[] decoded, EventPacker packing) {
    boolean any = false;
    for (Decoded d : decoded) {
      if (d instanceof PackedChange p) {
        if (p.slots() != packing.slots()) {
          return false;
        }
        any = true;
      } else if (d instanceof ChangeEvent) {
        return false;
      }
    }
    return any;
  }

  /** A batch whose records the table holds, or that stopped at its first record: only the stop points commit. */
  private BatchResult commitStopsOnly(int records, Long baseSnapshot, SinkOffsets held, Stops stops, int attempt) {
    stops.deadLetter(held);
    long snapshotId = BatchCommitter.commit(table, spec.sinkId(), baseSnapshot, held,
        BatchCommitter.Commit.offsetsOnly(held, new HashMap<>(carried), List.copyOf(stops.points.values()), List.of()));
    carried.clear();
    return new BatchResult(snapshotId, records, records, 0, 0, 0, false, 0, 0, List.of(), Map.of(), attempt);
  }

  /** The ledger of key changes waiting for their other half; files never change, so the last one read is kept. */
  private MoveLedger moves(String file) {
    if (file == null) {
      return MoveLedger.EMPTY;
    }
    if (!file.equals(movesFile) || movesLayout != layout) {
      movesRead = MoveLedgerFiles.read(table, file, layout);
      movesFile = file;
      movesLayout = layout;
    }
    return movesRead;
  }

  /** Whether the table is written by position: as the sink says, else as the table recorded at creation. */
  private boolean positional() {
    return WriteMode.forExistingTable(spec.table().writeMode(), table.properties().get(WriteMode.TABLE_PROPERTY))
        == WriteMode.POSITION_DELETES;
  }

  /**
   * The index as of the base snapshot: kept from this worker's last commit, caught up over other
   * writers' commits, loaded from the table's persisted copy, or (last resort) rebuilt.
   */
  private PrimaryKeyIndex index(Long baseSnapshot) {
    if (baseSnapshot == null) {
      return null;
    }
    if (index != null && !index.fits(layout)) {
      index = null; // the merge rules or the columns they read changed: the merge state must be read again
    }
    if (index != null && index.snapshotId() != baseSnapshot && !index.catchUp(table, baseSnapshot, layout)) {
      index = null;
    }
    if (index == null) {
      long t0 = System.nanoTime();
      PrimaryKeyIndex loaded = PersistedIndex.supports(layout) ? PersistedIndex.loadNewest(table, baseSnapshot, layout) : null;
      if (loaded != null && (loaded.snapshotId() == baseSnapshot || loaded.catchUp(table, baseSnapshot, layout))) {
        index = loaded;
        indexLoads++;
        LOG.info("loaded the primary-key index of {} ({} keys) and caught up to snapshot {} in {} ms", tableId, index.size(),
            baseSnapshot, (System.nanoTime() - t0) / 1_000_000);
      } else {
        index = PrimaryKeyIndex.build(table, baseSnapshot, layout);
        indexBuilds++;
        LOG.info("built the primary-key index of {} at snapshot {}: {} keys in {} ms", tableId, baseSnapshot, index.size(),
            (System.nanoTime() - t0) / 1_000_000);
        persistIndex();
      }
    }
    return index;
  }

  /** How often the index was rebuilt from the table and loaded from its persisted copy. */
  public int[] indexBuildsAndLoads() {
    return new int[] {indexBuilds, indexLoads};
  }

  /**
   * Persists the index if commits changed it since it was last persisted: a worker going away (scale
   * to zero, a rollout) leaves its successor an index to load at once instead of one to catch up or rebuild.
   */
  public void persistIndexIfChanged() {
    indexCopies.finishWriting(table); // a copy still being written beside the batches
    catchUpIndex(); // past this worker's own self-compaction, so that the next worker loads it without catching up
    if (indexCopies.changedSinceCopy()) {
      long t0 = System.nanoTime();
      persistIndex();
      LOG.info("persisted the primary-key index of {} on stop in {} ms", tableId, (System.nanoTime() - t0) / 1_000_000);
    }
  }

  /**
   * Brings a held index to the table's current snapshot (over commits this engine did not plan,
   * such as its worker's self-compaction). Best effort: a failure leaves the index to the next batch.
   */
  private void catchUpIndex() {
    try {
      if (index == null || !loadTable() || table.currentSnapshot() == null) {
        return;
      }
      long current = table.currentSnapshot().snapshotId();
      if (index.snapshotId() == current) {
        return;
      }
      if (index.fits(layout) && index.catchUp(table, current, layout)) {
        indexCopies.changedElsewhere();
      } else {
        index = null;
      }
    } catch (RuntimeException e) {
      LOG.debug("the primary-key index of {} is caught up by the next batch instead: {}", tableId, e.toString());
    }
  }

  /**
   * Loads the table and, where batches use one, its primary-key index, before the first batch: a
   * worker woken from zero polls its backlog meanwhile. Best effort: what fails here is done (or
   * fails with its reason) when the batch applies.
   */
  public void warmUp() {
    try {
      if (!loadTable()) {
        warmUpWriterForNewTable();
        return;
      }
      if (table.currentSnapshot() == null) {
        return;
      }
      warmUpWriter();
      long current = table.currentSnapshot().snapshotId();
      if (positional() || (mergeStateFromIndex && !LiveSpecs.needPartition(LiveSpecs.of(table, current)))) {
        index(current);
      }
    } catch (RuntimeException e) {
      LOG.debug("warming up {} failed; the first batch loads it: {}", tableId, e.toString());
    }
  }

  /**
   * Once per process, on a thread of its own beside the index load: a throwaway Parquet write of
   * this table's schema (see {@link WriterWarmUp}), so that the first commit finds the writer loaded.
   */
  private void warmUpWriter() {
    if (!WRITER_WARMED_UP.compareAndSet(false, true)) {
      return;
    }
    Schema schema = layout.schema();
    DataFileWriters factory = WriterWarmUp.factoryFor(table, schema); // here: the table is this thread's
    int formatVersion = org.apache.iceberg.TableUtil.formatVersion(table);
    startWarmUpThread(() -> WriterWarmUp.write(factory, schema, formatVersion));
  }

  /**
   * Once per process, for a table the first batch will create: the throwaway write in a table of
   * the common column types with this sink's table properties ({@link WriterWarmUp#writeForNewTable}).
   */
  private void warmUpWriterForNewTable() {
    if (!WRITER_WARMED_UP.compareAndSet(false, true)) {
      return;
    }
    Map<String, String> properties = spec.table().properties();
    int formatVersion = spec.table().formatVersion();
    startWarmUpThread(() -> WriterWarmUp.writeForNewTable(properties, formatVersion));
  }

  /** Runs a writer warm-up on a daemon thread of its own; a failure only leaves the loading to the first commit. */
  private static void startWarmUpThread(Runnable write) {
    Thread t = new Thread(() -> {
      try {
        write.run();
      } catch (RuntimeException e) {
        LOG.debug("warming the writer up failed; the first commit loads it: {}", e.toString());
      }
    }, "floe-warm-up-writer");
    t.setDaemon(true);
    t.start();
  }

  /** Persists the index now, waiting for the write. */
  private void persistIndex() {
    indexCopies.persistNow(table, index, layout);
  }

  private void keepIndexCurrent(Long baseSnapshot, long snapshotId, ChangeResolver.Changes changes,
      EqualityDeltaWriter.Written written, TruncatePlanner.Plan truncate) {
    Long parent = table.snapshot(snapshotId).parentId();
    if (baseSnapshot == null && parent == null && positional()) {
      // the table's first rows, as written: indexing them here spares the next batch a scan of the table (2.4 s at 370k keys)
      index = PrimaryKeyIndex.empty(layout);
      index.committed(table, snapshotId, List.of(), written.dataFiles(), written.rowsOfFiles(), layout);
      persistIndex(); // as a built one is: a restart loads it instead of scanning
      return;
    }
    if (index == null || baseSnapshot == null) {
      return;
    }
    if (!baseSnapshot.equals(parent) || (truncate != null && truncate.dropsAllFiles())) {
      // another commit slipped in underneath (Iceberg retried onto it), or files went: catch up
      if (!index.catchUp(table, snapshotId, layout)) {
        index = null;
      }
    } else {
      index.committed(table, snapshotId, changes.gone(), written.dataFiles(), written.rowsOfFiles(), layout);
    }
    indexCopies.committed(table, index, layout);
  }

  /** Creates the table from the first event, or evolves it to fit every event schema in the batch. */
  private void prepareTable(List<ChangeEvent> events, Map<EventSchema, Long> bySchema) {
    if (table == null) {
      ChangeEvent first = events.stream().filter(e -> e.op() != Op.TRUNCATE).findFirst().orElse(null);
      if (first == null) {
        return;
      }
      List<String> key = spec.table().primaryKey().isEmpty() ? List.copyOf(first.key().keySet()) : spec.table().primaryKey();
      table = TableProvisioner.create(catalog.get(), tableId, first.schema(), key, spec.table(), first.lsn() != null);
    }
    boolean changed = false;
    for (Map.Entry<EventSchema, Long> e : bySchema.entrySet()) {
      try {
        changed |= TableProvisioner.evolve(table, e.getKey(), e.getValue() == SchemaSurvey.NONE_SEEN ? null : e.getValue());
      } catch (IllegalArgumentException ex) {
        throw new IncompatibleSchemaException("table " + tableId + ": " + ex.getMessage(),
            events.stream().filter(ev -> ev.op() != Op.TRUNCATE && ev.schema() == e.getKey()).map(ChangeEvent::record).toList());
      }
    }
    if (changed) {
      table.refresh();
    }
    if (layout == null || changed || layout.schema().schemaId() != table.schema().schemaId()) {
      layout = TableLayout.of(table, spec.table());
      index = null; // keys may have been widened
    }
  }

  private boolean loadTable() {
    if (table != null) {
      table.refresh();
      if (layout != null && (layout.schema().schemaId() != table.schema().schemaId() || layout.spec().specId() != table.spec().specId())) {
        layout = TableLayout.of(table, spec.table());
      }
      return true;
    }
    try {
      table = catalog.get().loadTable(tableId);
      layout = TableLayout.of(table, spec.table());
      return true;
    } catch (NoSuchTableException e) {
      return false;
    }
  }

  private void deleteQuietly(EqualityDeltaWriter.Written written) {
    for (DataFile f : written.dataFiles()) {
      deleteFile(f.location());
    }
    for (DeleteFile f : written.deleteFiles()) {
      deleteFile(f.location());
    }
  }

  private void deleteFile(String location) {
    try {
      table.io().deleteFile(location);
    } catch (RuntimeException e) {
      // An uncommitted file left behind is an orphan for compaction to remove, never a wrong row.
      LOG.warn("could not delete uncommitted file {}: {}", location, e.toString());
    }
  }

  private static void backoff(int attempt) {
    try {
      Thread.sleep(Math.min(2_000, 25L << Math.min(attempt, 6)) + (long) (Math.random() * 50));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while retrying a commit", e);
    }
  }

}
