package dev.floe.worker.apply;

import dev.floe.worker.fold.RowKey;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/** The unboxed long and int key store behaves as a map from key to location, the key 0 (kept apart by the map) included. */
class PrimitiveKeysTest {
  @Property(tries = 100)
  void longKeysBehaveAsAMap(@ForAll("longOps") List<KeyLocationsModel.Op> ops) {
    KeyLocationsModel.assertBehavesAsAMap(new KeyLocations.PrimitiveKeys(false), ops,
        KeyLocationsModel.keyAfterAValue(org.apache.iceberg.types.Types.LongType.get()));
  }

  @Property(tries = 100)
  void intKeysBehaveAsAMap(@ForAll("intOps") List<KeyLocationsModel.Op> ops) {
    KeyLocationsModel.assertBehavesAsAMap(new KeyLocations.PrimitiveKeys(true), ops,
        KeyLocationsModel.keyAfterAValue(org.apache.iceberg.types.Types.IntegerType.get()));
  }

  @Provide
  Arbitrary<List<KeyLocationsModel.Op>> longOps() {
    return ops(Arbitraries.oneOf(Arbitraries.longs().between(-50, 50), Arbitraries.longs()).map(k -> (Object) k));
  }

  @Provide
  Arbitrary<List<KeyLocationsModel.Op>> intOps() {
    return ops(Arbitraries.oneOf(Arbitraries.integers().between(-50, 50), Arbitraries.integers()).map(k -> (Object) k));
  }

  private static Arbitrary<List<KeyLocationsModel.Op>> ops(Arbitrary<Object> key) {
    Arbitrary<Integer> kind = Arbitraries.frequency(Tuple.of(6, 0), Tuple.of(3, 1), Tuple.of(1, 2));
    Arbitrary<Integer> file = Arbitraries.integers().between(0, EncodedKeysTest.FILES.size() - 1);
    Arbitrary<Long> position = Arbitraries.longs().between(0, (1L << 40) - 1);
    return Combinators.combine(kind, key, file, position)
        .as((k, v, f, pos) -> new KeyLocationsModel.Op(k, new RowKey(new Object[] {v}), f, pos)).list().ofMaxSize(1_000);
  }
}
