package dev.floe.e2e.bench;

/** How big a benchmark run is: {@code -Dfloe.bench=smoke|default|full}. */
record BenchSize(String name, int orderEvents, int orderKeys, int contestBase, int contestBatch) {
  static BenchSize fromSystemProperty() {
    String name = System.getProperty("floe.bench", "smoke");
    return switch (name) {
      case "full" -> new BenchSize(name, 10_000_000, 1_000_000, 10_000_000, 2_000_000);
      case "default" -> new BenchSize(name, 1_000_000, 100_000, 1_000_000, 200_000);
      default -> new BenchSize("smoke", 30_000, 3_000, 10_000, 2_000);
    };
  }
}
