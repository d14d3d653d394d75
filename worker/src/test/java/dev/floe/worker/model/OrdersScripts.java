package dev.floe.worker.model;

import dev.floe.worker.fold.Unchanged;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.arbitraries.ListArbitrary;

/**
 * Generators of change histories over a small key space, so keys are inserted, updated, deleted,
 * re-inserted and moved between partitions (region) many times; with TOAST placeholders, truncates
 * and one schema change. Shared by every write mode's property tests.
 */
public final class OrdersScripts {
  private static final LocalDateTime EPOCH = LocalDateTime.of(2024, 1, 1, 0, 0);

  private OrdersScripts() {}

  /** Histories delivered in lock-step: every batch whole, one engine throughout. */
  public static Arbitrary<Script> scripts() {
    return scripts(steps(), Arbitraries.just(List.of()), false);
  }

  /**
   * Histories delivered with lagging partitions and engine restarts: a delivery may hold back the
   * newest records of a partition (so the create half of a key move can be applied batches before
   * or after its delete half), and a new engine may take over between deliveries. Shrinks towards
   * lock-step.
   */
  public static Arbitrary<Script> laggingScripts() {
    return scripts(keyMoveHeavySteps(), deliveries().list().ofSize(MAX_BATCHES), true);
  }

  /** One delivery: per partition how many of its newest records wait (mostly none), sometimes a restart. */
  public static Arbitrary<Delivery> deliveries() {
    Arbitrary<Integer> held = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, Arbitraries.just(0)),
        net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(1, 12)));
    Arbitrary<Boolean> restart = Arbitraries.integers().between(0, 4).map(i -> i == 4);
    return Combinators.combine(held.list().ofSize(OrdersTable.PARTITIONS), restart).as((h, r) -> {
      Map<Integer, Integer> byPartition = new HashMap<>();
      for (int p = 0; p < h.size(); p++) {
        byPartition.put(p, h.get(p));
      }
      return new Delivery(byPartition, r);
    });
  }

  private static final int MAX_BATCHES = 6;

  /**
   * With {@code uniformSizes} batch lengths and counts do not depend on jqwik's generation size
   * (which follows the number of tries, so that a few tries would see only short histories).
   */
  private static Arbitrary<Script> scripts(Arbitrary<Step> steps, Arbitrary<List<Delivery>> deliveries, boolean uniformSizes) {
    ListArbitrary<Step> batch = steps.list().ofMinSize(1).ofMaxSize(14);
    ListArbitrary<List<Step>> batches = (uniformSizes ? batch.withSizeDistribution(RandomDistribution.uniform()) : batch)
        .list().ofMinSize(1).ofMaxSize(MAX_BATCHES);
    if (uniformSizes) {
      batches = batches.withSizeDistribution(RandomDistribution.uniform());
    }
    Arbitrary<Integer> evolveAt = Arbitraries.integers().between(-2, 5); // negative: never
    return Combinators.combine(batches, evolveAt, deliveries).as((bs, at, ds) -> {
      List<List<Step>> out = new ArrayList<>();
      for (int i = 0; i < bs.size(); i++) {
        List<Step> b = new ArrayList<>(bs.get(i));
        if (i == at) {
          b.add(b.size() / 2, new Step.EvolveSchema());
        }
        out.add(b);
      }
      return new Script(out, ds);
    });
  }

  public static Arbitrary<Step> steps() {
    Arbitrary<Long> ids = Arbitraries.longs().between(1, 6);
    Arbitrary<Step> rekey = Combinators.combine(ids, ids, upserts(ids))
        .as((from, to, u) -> new Step.Rekey(from, to, ((Step.Upsert) u).values()));
    return steps(ids, 2, rekey, 1);
  }

  /**
   * Steps where primary-key updates are frequent and mostly leave the TOASTed note unchanged, over
   * fewer keys (so a moved row's old key is soon updated, deleted, re-inserted and moved again):
   * the histories where the delete and create halves of a move meet lagging partitions. No
   * truncates: a truncate held back in its partition while a newer change of a key in another
   * partition is merged (sum, min, max, ...) with the row the truncate should have removed is a
   * different problem (the engine cannot know of a truncate it has not read), kept out so that
   * these histories fail only for key moves.
   */
  public static Arbitrary<Step> keyMoveHeavySteps() {
    Arbitrary<Long> ids = Arbitraries.longs().between(1, 4);
    Arbitrary<Step> rekey = Combinators.combine(ids, ids, upserts(ids), Arbitraries.integers().between(0, 3))
        .as((from, to, u, unchanged) -> {
          Map<String, Object> values = new HashMap<>(((Step.Upsert) u).values());
          if (unchanged > 0) {
            values.put("note", Unchanged.VALUE);
          }
          return new Step.Rekey(from, to, values);
        });
    return steps(ids, 6, rekey, 0);
  }

  private static Arbitrary<Step> steps(Arbitrary<Long> ids, int rekeyWeight, Arbitrary<Step> rekey, int truncateWeight) {
    Arbitrary<Step> delete = ids.map(Step.Delete::new);
    Arbitrary<Step> truncate = Arbitraries.integers().between(0, OrdersTable.PARTITIONS - 1).map(Step.Truncate::new);
    List<net.jqwik.api.Tuple.Tuple2<Integer, Arbitrary<Step>>> choices = new ArrayList<>(List.of(
        net.jqwik.api.Tuple.of(12, upserts(ids)),
        net.jqwik.api.Tuple.of(rekeyWeight, rekey),
        net.jqwik.api.Tuple.of(3, delete)));
    if (truncateWeight > 0) {
      choices.add(net.jqwik.api.Tuple.of(truncateWeight, truncate));
    }
    return Arbitraries.frequencyOf(choices.toArray(net.jqwik.api.Tuple.Tuple2[]::new));
  }

  static Arbitrary<Step> upserts(Arbitrary<Long> ids) {
    Arbitrary<String> region = Arbitraries.of("eu", "us", "ap");
    Arbitrary<Integer> qty = Arbitraries.integers().between(-3, 10).injectNull(0.15);
    Arbitrary<BigDecimal> price = Arbitraries.integers().between(0, 99_999).map(c -> BigDecimal.valueOf(c, 2)).injectNull(0.3);
    Arbitrary<Object> note = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, Arbitraries.of("a", "bb", "ccc", "a longer note")),
        net.jqwik.api.Tuple.of(3, Arbitraries.just(Unchanged.VALUE)),
        net.jqwik.api.Tuple.of(1, Arbitraries.just(null)));
    Arbitrary<Long> hi = Arbitraries.longs().between(-100, 100).injectNull(0.2);
    Arbitrary<Long> lo = Arbitraries.longs().between(-100, 100).injectNull(0.2);
    Arbitrary<LocalDateTime> since = Arbitraries.longs().between(0, 1_000_000_000L).map(EPOCH::plusNanos)
        .map(t -> t.withNano(t.getNano() / 1000 * 1000)).injectNull(0.2);
    Arbitrary<String> extra = Arbitraries.of("x", "y").injectNull(0.3);
    Arbitrary<Map<String, Object>> firstHalf = Combinators.combine(region, qty, price, note).as((r, q, p, n) -> {
      Map<String, Object> m = new HashMap<>();
      m.put("region", r);
      m.put("qty", q);
      m.put("price", p);
      m.put("note", n);
      return m;
    });
    return Combinators.combine(ids, firstHalf, hi, lo, since, extra).as((id, m, h, l, s, x) -> {
      Map<String, Object> values = new HashMap<>(m);
      values.put("hi", h);
      values.put("lo", l);
      values.put("since", s);
      values.put("extra", x);
      return new Step.Upsert(id, values);
    });
  }
}
