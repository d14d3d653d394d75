package dev.floe.worker.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.GarbageCollectionNotificationInfo;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.Decoded;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.runtime.OpenBatch;
import dev.floe.worker.testing.LocalWarehouse;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an open batch of {@code orders} records costs in heap: held as Kafka delivers them, held
 * with their schema shared (as {@link OpenBatch} holds them), and the live-heap high-water (after
 * each GC) while the engine applies the batch as one commit. Sizes {@code commit.maxBytes} and
 * {@code commit.maxRecords} defaults; {@code -Dfloe.long=true}, {@code -Dfloe.bench.records=N}.
 */
class BatchHeapProbe {
  @TempDir Path dir;

  @Test
  @EnabledIfSystemProperty(named = "floe.long", matches = "true")
  void heldAndApplied() {
    int n = Integer.getInteger("floe.bench.records", 500_000);
    OrdersWorkload workload = new OrdersWorkload(Integer.getInteger("floe.bench.keys", 1_000_000));
    List<RawRecord> warm = workload.nextBatch(n / 5); // a table to apply onto, and its index
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine engine = new SinkEngine(new SinkSpec(
        new SourceSpec("unused:9092", List.of(OrdersWorkload.TOPIC), null, "floe-bench", null, null),
        new TableSpec(warehouse.spec(), "bench.heap", List.of(), List.of(), 2, WriteMode.POSITION_DELETES, Map.of(), Map.of()),
        null, null, null), warehouse.catalog());
    engine.apply(warm, DeadLetters.DISCARD);
    warm = null;
    engine.apply(workload.nextBatch(1_000), DeadLetters.DISCARD); // builds the index

    long base = liveHeap();
    List<RawRecord> polled = workload.nextBatch(n);
    long raw = liveHeap() - base;
    long rawBytes = polled.stream().mapToLong(RawRecord::sizeInBytes).sum();
    OpenBatch batch = new OpenBatch(new CommitSpec("1h", n, Long.MAX_VALUE));
    polled.forEach(r -> batch.add(r, 0));
    polled = null;
    long held = liveHeap() - base;
    // decoded ahead as the worker held them before: each record's bytes and its decode
    List<Decoded> decodes = new ArrayList<>(batch.records().size());
    batch.records().forEach(r -> decodes.add(engine.decodeAhead(r)));
    long decodedWithBytes = liveHeap() - base;
    // as the decoding thread leaves them now: each decode kept in place of its bytes
    for (int i = 0; i < decodes.size(); i++) {
      if (decodes.get(i) != null) {
        batch.records().get(i).keepDecoded(decodes.get(i));
      }
    }
    decodes.clear();
    long decoded = liveHeap() - base;

    AtomicLong highWater = new AtomicLong();
    List<Runnable> stop = watchLiveHeap(highWater);
    long allocatedBefore = allocatedByAllThreads();
    long t0 = System.nanoTime();
    engine.apply(new ArrayList<>(batch.records()), DeadLetters.DISCARD);
    double seconds = (System.nanoTime() - t0) / 1e9;
    long allocated = allocatedByAllThreads() - allocatedBefore;
    stop.forEach(Runnable::run);
    System.out.printf(Locale.ROOT, """
        open batch of %,d orders records (%,d B each as delivered):
          held as delivered: %,d MiB live (%,d B/record)
          held schema-shared: %,d MiB live (%,d B/record); counted by maxBytes: %,d MiB (%,d B/record)
          decoded ahead, bytes kept: %,d MiB live (%,d B/record); bytes released: %,d MiB live (%,d B/record)
          applied as one commit in %.1f s; live heap high-water after GC during it: %,d MiB (before the batch: %,d MiB)
          allocated while applying, by all threads: %,d MiB (%,d B/record)
        """, n, rawBytes / n, raw >> 20, raw / n, held >> 20, held / n, batch.bytes() >> 20, batch.bytes() / n,
        decodedWithBytes >> 20, decodedWithBytes / n, decoded >> 20, decoded / n, seconds, highWater.get() >> 20, base >> 20,
        allocated >> 20, allocated / n);
    assertThat(held).isLessThan(raw);
    assertThat(decoded).isLessThan(decodedWithBytes);
  }

  /**
   * Bytes allocated so far by the threads alive now (the applying thread, the common pool that
   * projects and the Parquet writers): unlike seconds, the same on a busy machine as on an idle one.
   */
  private static long allocatedByAllThreads() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long sum = 0;
    for (long a : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
      sum += Math.max(0, a);
    }
    return sum;
  }

  private static long liveHeap() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    MemoryUsage u = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    return u.getUsed();
  }

  /** Records the largest heap in use after any GC, until the returned actions run. */
  private static List<Runnable> watchLiveHeap(AtomicLong highWater) {
    List<Runnable> stops = new ArrayList<>();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      NotificationEmitter emitter = (NotificationEmitter) gc;
      javax.management.NotificationListener l = (notification, handback) -> {
        if (notification.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
          GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
          long used = info.getGcInfo().getMemoryUsageAfterGc().values().stream().mapToLong(MemoryUsage::getUsed).sum();
          highWater.accumulateAndGet(used, Math::max);
        }
      };
      emitter.addNotificationListener(l, null, null);
      stops.add(() -> {
        try {
          emitter.removeNotificationListener(l);
        } catch (javax.management.ListenerNotFoundException e) {
          // already gone
        }
      });
    }
    return stops;
  }
}
