package dev.floe.worker.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.decode.AvroChangeDecoder;
import dev.floe.worker.decode.AvroWire;
import dev.floe.worker.decode.ChangeDecoder;
import dev.floe.worker.decode.ChangeEvent;
import dev.floe.worker.decode.DebeziumDecoder;
import dev.floe.worker.decode.Decoded;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Decoding speed of the {@code orders} stream (JsonConverter with schemas), as a ratio against the
 * same decoder reading envelopes with Jackson alone, alternating in one process. A small smoke run
 * keeps it honest; {@code -Dfloe.probe=true} runs 200k records.
 */
class DecodeProbe {
  @Test
  void smoke() {
    System.out.println(run(5_000, 2));
  }

  @Test
  @EnabledIfSystemProperty(named = "floe.probe", matches = "true")
  void decodeOnly() {
    System.out.println(run(200_000, Integer.getInteger("floe.probe.rounds", 5)));
  }

  /** The contest's rows (a uuid key, six strings, a long): values that rarely repeat, a key record with its own schema. */
  @Test
  @EnabledIfSystemProperty(named = "floe.probe", matches = "true")
  void contestDecodeOnly() {
    System.out.println("contest " + run(contestRecords(200_000), 5));
  }

  @Test
  void avroSmoke() {
    System.out.println(avro(5_000, 2));
  }

  @Test
  @EnabledIfSystemProperty(named = "floe.probe", matches = "true")
  void avroDecodeOnly() {
    System.out.println(avro(200_000, 5));
  }

  /**
   * The same orders events as Debezium's Avro converter writes them (Confluent wire format), read
   * by the Avro decoder, against the JSON decoder's fastest path (the envelope scanner) on the
   * JSON originals: a ratio above 1 means Avro decodes faster.
   */
  private static String avro(int records, int rounds) {
    List<RawRecord> json = new OrdersWorkload(100_000).nextBatch(records);
    AvroWire wire = new AvroWire();
    List<RawRecord> avro = json.stream().map(r -> wire.rewrite(r, AvroWire.Format.CONFLUENT)).toList();
    DebeziumDecoder scanning = new DebeziumDecoder(List.of());
    AvroChangeDecoder avroDecoder = new AvroChangeDecoder(List.of(), wire.schemas());
    for (int i = 0; i < Math.min(200, json.size()); i++) { // both read the same events
      assertThat(describe(avroDecoder.decode(avro.get(i), null))).isEqualTo(describe(scanning.decode(json.get(i), null)));
    }
    double jsonBest = Double.MAX_VALUE;
    double avroBest = Double.MAX_VALUE;
    for (int round = 0; round < rounds; round++) { // alternate, keep the best of each: the machine is shared
      jsonBest = Math.min(jsonBest, seconds(scanning, json));
      avroBest = Math.min(avroBest, seconds(avroDecoder, avro));
    }
    return String.format(Locale.ROOT, "decode: %,d records: Avro (avg %d bytes) %,.0f/s, JSON envelope scanner (avg %d bytes) %,.0f/s;"
        + " Avro/JSON ratio %.2fx", json.size(), avro.stream().mapToLong(RawRecord::sizeInBytes).sum() / avro.size(), avro.size() / avroBest,
        json.stream().mapToLong(RawRecord::sizeInBytes).sum() / json.size(), json.size() / jsonBest, jsonBest / avroBest);
  }

  private static String run(int records, int rounds) {
    return run(new OrdersWorkload(100_000).nextBatch(records), rounds);
  }

  private static List<RawRecord> contestRecords(int records) {
    DebeziumEnvelopes source = DebeziumEnvelopes.forTopic("contest.public.requests").columns(List.of(
        ConnectColumn.uuid("uuid").required(), ConnectColumn.string("ip"), ConnectColumn.string("hostname"),
        ConnectColumn.int64("requests"), ConnectColumn.string("name"), ConnectColumn.string("city"),
        ConnectColumn.string("job"), ConnectColumn.string("phonenum"))).key("uuid");
    Random random = new Random(2022);
    List<RawRecord> out = new ArrayList<>(records);
    for (int i = 0; i < records; i++) {
      Map<String, Object> row = new HashMap<>();
      row.put("uuid", new UUID(random.nextLong(), random.nextLong()));
      row.put("ip", "10." + random.nextInt(255) + ".0.1");
      row.put("hostname", "host-" + random.nextInt(10_000));
      row.put("requests", (long) random.nextInt(1000));
      row.put("name", random.nextInt(4) == 0 ? null : "name-" + random.nextInt(100_000));
      row.put("city", "city-" + random.nextInt(500));
      row.put("job", "job-" + random.nextInt(50));
      row.put("phonenum", String.valueOf(13_000_000_000L + random.nextInt(1_000_000_000)));
      out.add(source.insert(i % 4, row));
    }
    return out;
  }

  private static String run(List<RawRecord> batch, int rounds) {
    DebeziumDecoder scanning = new DebeziumDecoder(List.of());
    DebeziumDecoder jacksonOnly = DebeziumDecoder.withoutEnvelopeScanner(List.of());
    for (int i = 0; i < Math.min(200, batch.size()); i++) { // both read the same events
      assertThat(describe(scanning.decode(batch.get(i), null))).isEqualTo(describe(jacksonOnly.decode(batch.get(i), null)));
    }
    double best = Double.MAX_VALUE;
    double baseline = Double.MAX_VALUE;
    for (int round = 0; round < rounds; round++) { // alternate, keep the best of each: the machine is shared
      baseline = Math.min(baseline, seconds(jacksonOnly, batch));
      best = Math.min(best, seconds(scanning, batch));
    }
    return String.format(Locale.ROOT, "decode: %,d records (avg %d bytes): %,.0f/s with the envelope scanner, %,.0f/s Jackson alone; ratio %.2fx",
        batch.size(), batch.stream().mapToLong(RawRecord::sizeInBytes).sum() / batch.size(), batch.size() / best, batch.size() / baseline,
        baseline / best);
  }

  private static String describe(Decoded d) {
    return d instanceof ChangeEvent e
        ? e.op() + " " + e.key() + " " + Arrays.deepToString(e.values()) + " " + e.lsn()
        : d.toString();
  }

  private static double seconds(ChangeDecoder decoder, List<RawRecord> batch) {
    long t0 = System.nanoTime();
    int events = 0;
    for (RawRecord r : batch) {
      if (decoder.decode(r, null) instanceof ChangeEvent) {
        events++;
      }
    }
    assertThat(events).isPositive();
    return (System.nanoTime() - t0) / 1e9;
  }
}
