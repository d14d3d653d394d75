package dev.floe.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.CompactionSpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.Decoded;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.SharedSchemas;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.fold.MergeRule;
import dev.floe.worker.maintain.SelfCompactionPlanner;
import dev.floe.worker.maintain.SelfCompactor;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The CCF BDCI 2022 data-lake contest: a base load, then 10 upsert batches over a uuid key,
 * {@code requests} summed, {@code name} last non-null, others last; write seconds and full read
 * seconds as the contest scored them, checked against an oracle (the request sums per key). The
 * engine runs as a worker runs it: each batch is decoded ahead, on a thread of its own, while the
 * batch before it applies; the write seconds run from the first batch's decode to the last commit.
 */
final class Contest {
  private static final int MAX_RECORDS = 500_000;

  private Contest() {}

  static Map<String, Object> run(Path dir, int base, int batchSize, WriteMode mode) throws IOException {
    CatalogSpec catalog = CatalogSpec.local(dir.resolve("warehouse").toString());
    SinkSpec sink = new SinkSpec(new SourceSpec("unused:9092", List.of("contest.public.requests"), null, "floe-contest", null, null),
        new TableSpec(catalog, "bench.contest", List.of(), List.of(), mode == WriteMode.POSITION_DELETES ? 3 : 2, mode,
            Map.of("requests", MergeRule.SUM, "name", MergeRule.LAST_NON_NULL), Map.of()), null, null, null);
    org.apache.iceberg.catalog.Catalog lake = CatalogLoader.load("floe", catalog, SecretResolver.fromEnvironment());
    SinkEngine engine = new SinkEngine(sink, lake);
    // -Dfloe.contest.reference=true: stored rows read whole (the general path), to compare the merge state against
    boolean reference = Boolean.getBoolean("floe.contest.reference");
    if (reference) {
      engine.readingStoredRowsWhole();
    }
    DebeziumEnvelopes source = DebeziumEnvelopes.forTopic("contest.public.requests").columns(List.of(
        ConnectColumn.uuid("uuid").required(), ConnectColumn.string("ip"), ConnectColumn.string("hostname"),
        ConnectColumn.int64("requests"), ConnectColumn.string("name"), ConnectColumn.string("city"),
        ConnectColumn.string("job"), ConnectColumn.string("phonenum"))).key("uuid");
    Random random = new Random(2022);
    SharedSchemas held = new SharedSchemas();
    Oracle oracle = new Oracle(base);
    long writeNanos = 0;
    long writeGcMillis = 0;
    long writeCpuNanos = 0;
    long decodeAheadNanos = 0;
    int baseChunks = 5; // the base load arrives in five parts
    // a worker closes a batch at 500,000 records by default: a larger upsert batch commits in parts
    List<Integer> parts = new ArrayList<>();
    for (int b = -baseChunks; b < 10; b++) {
      int size = b < 0 ? base / baseChunks : batchSize;
      for (int part = 0; part < size; part += MAX_RECORDS) {
        parts.add((b < 0 ? -1 : 1) * Math.min(MAX_RECORDS, size - part)); // negative: a part of the base load
      }
    }
    // As a worker runs: the next batch is polled and decoded ahead on its own thread while the
    // current one applies (AheadDecoder). Making the records is the harness's work and is not timed.
    ExecutorService decoding = Executors.newSingleThreadExecutor(r -> new Thread(r, "contest-decode-ahead"));
    try {
      List<RawRecord> next = upserts(parts.get(0), oracle, random, source, held);
      long t = System.nanoTime();
      long cpu = processCpuNanos();
      decodeAhead(engine, next);
      writeNanos += System.nanoTime() - t;
      writeCpuNanos += processCpuNanos() - cpu;
      for (int i = 0; i < parts.size(); i++) {
        List<RawRecord> batch = next;
        next = i + 1 < parts.size() ? upserts(parts.get(i + 1), oracle, random, source, held) : List.of();
        List<RawRecord> ahead = next;
        long gc0 = gcMillis();
        long cpu0 = processCpuNanos();
        long t0 = System.nanoTime();
        Future<Long> decoded = decoding.submit(() -> decodeAhead(engine, ahead));
        engine.apply(batch, DeadLetters.DISCARD);
        decodeAheadNanos += decoded.get();
        writeNanos += System.nanoTime() - t0;
        writeCpuNanos += processCpuNanos() - cpu0;
        writeGcMillis += gcMillis() - gc0;
      }
    } catch (InterruptedException | ExecutionException e) {
      throw new IllegalStateException("decoding ahead failed", e);
    } finally {
      decoding.shutdownNow();
    }
    int rows = oracle.assertHeldBy(engine.table(), "the oracle: request sums per key");
    // the timed reads hold nothing: the oracle's map is out of them; each runs twice, the faster counts
    double readSeconds = Math.min(FloeBenchmark.scanSeconds(engine.table()), FloeBenchmark.scanSeconds(engine.table()));
    Table fresh = FloeBenchmark.freshCopy(lake, engine.table(), "bench.contest_fresh");
    double freshReadSeconds = FloeBenchmark.freshWriteAndScan(fresh, engine.table(), sink.table())[1];
    freshReadSeconds = Math.min(freshReadSeconds, FloeBenchmark.scanSeconds(fresh));
    // what an idle worker then does by itself (compaction.selfCompaction), and the read after it
    long t2 = System.nanoTime();
    SelfCompactor.Report compacted = new SelfCompactor(engine.table(), CompactionSpec.DEFAULTS).run(SelfCompactionPlanner.Trigger.IDLE, () -> true);
    double selfCompactionSeconds = (System.nanoTime() - t2) / 1e9;
    engine.table().refresh();
    oracle.assertHeldBy(engine.table(), "the oracle after the idle self-compaction");
    double idleReadSeconds = Math.min(FloeBenchmark.scanSeconds(engine.table()), FloeBenchmark.scanSeconds(engine.table()));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("writeSeconds", writeNanos / 1e9);
    out.put("writeGcPauseSeconds", writeGcMillis / 1e3);
    // CPU seconds of the whole process while the write was timed: steadier than the wall on a shared machine, for A/Bs
    out.put("writeCpuSeconds", writeCpuNanos / 1e9);
    out.put("decodeAheadSeconds", decodeAheadNanos / 1e9);
    out.put("readSeconds", readSeconds);
    out.put("freshReadSeconds", freshReadSeconds);
    out.put("readRatioToFresh", readSeconds / freshReadSeconds);
    out.put("idleSelfCompactionSeconds", selfCompactionSeconds);
    out.put("idleSelfCompactionFilesRewritten", compacted.filesRewritten());
    out.put("idleReadSeconds", idleReadSeconds);
    out.put("idleReadRatioToFresh", idleReadSeconds / freshReadSeconds);
    out.put("rows", rows);
    out.put("storedRows", reference ? "read whole (reference)" : "merge state in the index");
    out.put("phaseMillis", engine.phaseTimes().millis());
    long[] index = engine.indexFootprintBytes();
    if (index != null) {
      out.put("indexBytesPerKey.keysAndLocations", index[0] / Math.max(1, rows));
      out.put("indexBytesPerKey.mergeState", index[1] / Math.max(1, rows));
    }
    System.out.println("contest " + mode + ": " + out);
    return out;
  }

  /**
   * The records of one batch: {@code count} new keys of the base load when negative, else upserts of
   * random known keys; the oracle (request sums per key) follows them.
   */
  private static List<RawRecord> upserts(int count, Oracle oracle, Random random, DebeziumEnvelopes source, SharedSchemas held) {
    boolean baseLoad = count < 0;
    List<RawRecord> batch = new ArrayList<>(Math.abs(count));
    for (int i = 0; i < Math.abs(count); i++) {
      int k = baseLoad ? oracle.add(new UUID(random.nextLong(), random.nextLong())) : random.nextInt(oracle.size());
      UUID key = oracle.key(k);
      long req = random.nextInt(1000);
      oracle.sum(k, req);
      Map<String, Object> row = new HashMap<>();
      row.put("uuid", key);
      row.put("ip", "10." + random.nextInt(255) + ".0.1");
      row.put("hostname", "host-" + random.nextInt(10_000));
      row.put("requests", req);
      row.put("name", random.nextInt(4) == 0 ? null : "name-" + random.nextInt(100_000));
      row.put("city", "city-" + random.nextInt(500));
      row.put("job", "job-" + random.nextInt(50));
      row.put("phonenum", String.valueOf(13_000_000_000L + random.nextInt(1_000_000_000)));
      // held as a worker's consumer holds them: the repeated schema shared, the payload alone copied
      batch.add(held.share(source.insert(Math.floorMod(key.hashCode(), 4), row)));
    }
    return batch;
  }

  /** Decodes records as a worker's decoding thread does, each decode kept in place of its bytes; returns the nanoseconds it took. */
  private static long decodeAhead(SinkEngine engine, List<RawRecord> records) {
    long t0 = System.nanoTime();
    for (RawRecord r : records) {
      Decoded d = engine.decodeAhead(r);
      if (d != null) {
        r.keepDecoded(d);
      }
    }
    return System.nanoTime() - t0;
  }

  /**
   * The request sums per key, in primitive arrays by key number: at full size the harness holds 10M
   * keys, and as objects (a map of boxed keys and sums) they made the test JVM's collections, which
   * pause the engine too, several times longer than the engine's own.
   */
  private static final class Oracle {
    private long[] most;
    private long[] least;
    private long[] sums;
    private int size;

    Oracle(int capacity) {
      most = new long[Math.max(16, capacity)];
      least = new long[most.length];
      sums = new long[most.length];
    }

    /** Adds a key with a sum of 0; returns its number. */
    int add(UUID key) {
      if (size == most.length) {
        most = java.util.Arrays.copyOf(most, size * 2);
        least = java.util.Arrays.copyOf(least, size * 2);
        sums = java.util.Arrays.copyOf(sums, size * 2);
      }
      most[size] = key.getMostSignificantBits();
      least[size] = key.getLeastSignificantBits();
      return size++;
    }

    int size() {
      return size;
    }

    UUID key(int k) {
      return new UUID(most[k], least[k]);
    }

    void sum(int k, long requests) {
      sums[k] += requests;
    }

    /** Asserts the table holds exactly one row per key, with the key's sum; returns the rows read. */
    int assertHeldBy(Table table, String description) throws IOException {
      Map<UUID, Long> read = new HashMap<>(size * 4 / 3 + 1);
      try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
        for (Record r : rows) {
          assertThat(read.put((UUID) r.getField("uuid"), (Long) r.getField("requests"))).as("%s: a key held twice", description).isNull();
        }
      }
      assertThat(read.size()).as("%s: rows", description).isEqualTo(size);
      for (int k = 0; k < size; k++) {
        Long held = read.get(key(k));
        if (held == null || held != sums[k]) {
          assertThat(held).as("%s: key %s", description, key(k)).isEqualTo(sums[k]);
        }
      }
      return read.size();
    }
  }

  /** Collection time of this JVM so far, every collector: the write's share says what the held batch costs. */
  /** CPU time of this process, every thread (the in-process broker's too, idle while the contest writes). */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static long gcMillis() {
    long total = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, gc.getCollectionTime());
    }
    return total;
  }
}
