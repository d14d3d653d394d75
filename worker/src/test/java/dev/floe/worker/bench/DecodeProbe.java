package dev.floe.worker.bench;

import dev.floe.worker.decode.DebeziumDecoder;
import dev.floe.worker.decode.RawRecord;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

class DecodeProbe {
  @Test
  @EnabledIfSystemProperty(named = "floe.probe", matches = "true")
  void decodeOnly() {
    OrdersWorkload w = new OrdersWorkload(100_000);
    List<RawRecord> batch = w.nextBatch(200_000);
    DebeziumDecoder d = new DebeziumDecoder(List.of());
    for (int round = 0; round < 3; round++) {
      long t0 = System.nanoTime();
      for (RawRecord r : batch) {
        d.decode(r, null);
      }
      double s = (System.nanoTime() - t0) / 1e9;
      System.out.printf("decode: %,d records in %.2f s = %,.0f/s (avg %d bytes)%n", batch.size(), s, batch.size() / s,
          batch.stream().mapToLong(RawRecord::sizeInBytes).sum() / batch.size());
    }
  }
}
