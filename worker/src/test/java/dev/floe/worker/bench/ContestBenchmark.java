package dev.floe.worker.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.fold.MergeRule;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.testing.LocalWarehouse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CCF BDCI 2022 data-lake contest workload: a base load, then 10 upsert batches over a uuid key,
 * {@code requests} summed, {@code name} last non-null, others last; total write seconds and full
 * read seconds as the contest scored them, per write mode, checked against an oracle (request sums).
 * A tenth of full size with {@code -Dfloe.long=true}; a fiftieth of that otherwise.
 */
class ContestBenchmark {
  @TempDir Path dir;

  @Test
  void smoke() {
    for (WriteMode mode : WriteMode.values()) {
      run(20_000, 4_000, mode);
    }
  }

  @Test
  @EnabledIfSystemProperty(named = "floe.long", matches = "true")
  void tenthOfFullSize() {
    for (WriteMode mode : WriteMode.values()) {
      System.out.println(run(1_000_000, 200_000, mode));
    }
  }

  private String run(int base, int batchSize, WriteMode mode) {
    LocalWarehouse warehouse = new LocalWarehouse(dir.resolve(mode.name()));
    SinkSpec sink = new SinkSpec(new SourceSpec("unused:9092", List.of("contest.public.requests"), null, "floe-contest", null, null),
        new TableSpec(warehouse.spec(), "bench.contest", List.of(), List.of(), 2, mode,
            Map.of("requests", MergeRule.SUM, "name", MergeRule.LAST_NON_NULL), Map.of()), null, null, null);
    SinkEngine engine = new SinkEngine(sink, warehouse.catalog());
    DebeziumEnvelopes source = DebeziumEnvelopes.forTopic("contest.public.requests").columns(List.of(
        ConnectColumn.uuid("uuid").required(), ConnectColumn.string("ip"), ConnectColumn.string("hostname"),
        ConnectColumn.int64("requests"), ConnectColumn.string("name"), ConnectColumn.string("city"),
        ConnectColumn.string("job"), ConnectColumn.string("phonenum"))).key("uuid");
    Random random = new Random(2022);
    List<UUID> keys = new ArrayList<>(base);
    Map<UUID, Long> requests = new HashMap<>();
    long writeNanos = 0;
    for (int b = -5; b < 10; b++) { // five chunks of the base load, then 10 upsert batches
      List<RawRecord> batch = new ArrayList<>();
      int size = b < 0 ? base / 5 : batchSize;
      for (int i = 0; i < size; i++) {
        UUID key = b < 0 ? new UUID(random.nextLong(), random.nextLong()) : keys.get(random.nextInt(keys.size()));
        if (b < 0) {
          keys.add(key);
        }
        long req = random.nextInt(1000);
        requests.merge(key, req, Long::sum);
        Map<String, Object> row = new HashMap<>();
        row.put("uuid", key);
        row.put("ip", "10." + random.nextInt(255) + ".0.1");
        row.put("hostname", "host-" + random.nextInt(10_000));
        row.put("requests", req);
        row.put("name", random.nextInt(4) == 0 ? null : "name-" + random.nextInt(100_000));
        row.put("city", "city-" + random.nextInt(500));
        row.put("job", "job-" + random.nextInt(50));
        row.put("phonenum", String.valueOf(13_000_000_000L + random.nextInt(1_000_000_000)));
        batch.add(source.insert(Math.floorMod(key.hashCode(), 4), row));
      }
      long t0 = System.nanoTime();
      engine.apply(batch, DeadLetters.DISCARD);
      writeNanos += System.nanoTime() - t0;
    }
    long t1 = System.nanoTime();
    Map<UUID, Long> read = new HashMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(engine.table()).build()) {
      for (Record r : rows) {
        read.put((UUID) r.getField("uuid"), (Long) r.getField("requests"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    double readSeconds = (System.nanoTime() - t1) / 1e9;
    assertThat(read).isEqualTo(requests);
    return String.format(Locale.ROOT, "contest (%s): %,d base rows + 10 batches of %,d upserts: write %.1f s, full read %.1f s, %,d rows",
        mode, base, batchSize, writeNanos / 1e9, readSeconds, read.size());
  }
}
