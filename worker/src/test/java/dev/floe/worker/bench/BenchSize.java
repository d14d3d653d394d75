package dev.floe.worker.bench;

import dev.floe.worker.config.WriteMode;
import java.util.Arrays;
import java.util.List;

/** What a full-size engine benchmark runs: {@code -Dfloe.bench.events}, {@code -Dfloe.bench.keys}, {@code -Dfloe.bench.mode}. */
record BenchSize(int events, int keys, List<WriteMode> modes) {
  static BenchSize fromProperties() {
    String mode = System.getProperty("floe.bench.mode");
    List<WriteMode> modes = Arrays.stream(WriteMode.values()).filter(m -> mode == null || m.name().equalsIgnoreCase(mode)).toList();
    return new BenchSize(Integer.getInteger("floe.bench.events", 1_000_000), Integer.getInteger("floe.bench.keys", 100_000), modes);
  }
}
