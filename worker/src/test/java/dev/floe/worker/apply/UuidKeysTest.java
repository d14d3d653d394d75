package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.fold.RowKey;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.apache.iceberg.DataFile;
import org.junit.jupiter.api.Test;

/** The unboxed UUID key store behaves as a map from key to location, whatever the operations. */
class UuidKeysTest {
  static final List<DataFile> FILES = EncodedKeysTest.FILES;

  @Property(tries = 200)
  void behavesAsAMapUnderPutsRemovesAndFileDrops(@ForAll("ops") List<KeyLocationsModel.Op> ops) {
    // long probe runs and many rebuilds from the first puts; half the puts and every lookup also by row
    KeyLocationsModel.assertBehavesAsAMap(new UuidKeys(4), ops, KeyLocationsModel.keyAfterAValue(org.apache.iceberg.types.Types.UUIDType.get()));
  }

  @Provide
  Arbitrary<List<KeyLocationsModel.Op>> ops() {
    Arbitrary<Integer> kind = Arbitraries.frequency(Tuple.of(6, 0), Tuple.of(3, 1), Tuple.of(1, 2));
    // halves from a small range: repeated keys, and keys that differ in one half only
    Arbitrary<Long> half = Arbitraries.oneOf(Arbitraries.longs().between(-3, 600), Arbitraries.longs());
    Arbitrary<Integer> file = Arbitraries.integers().between(0, FILES.size() - 1);
    Arbitrary<Long> position = Arbitraries.longs().between(0, (1L << 40) - 1);
    return Combinators.combine(kind, half, half, file, position)
        .as((k, m, l, f, pos) -> new KeyLocationsModel.Op(k, new RowKey(new Object[] {new UUID(m, l)}), f, pos)).list().ofMaxSize(3_000);
  }

  @Test
  void keysPutAndRemovedManyTimesOverAreFoundWhereTheyWereLastPut() {
    // given a table whose slots fill with removed keys again and again (each rebuild must drop them)
    UuidKeys keys = new UuidKeys();
    for (int round = 0; round < 50; round++) {
      for (int i = 0; i < 500; i++) {
        keys.put(new RowKey(new Object[] {new UUID(round, i)}), FILES.get(i % FILES.size()), i);
      }
      for (int i = 0; i < 500; i++) {
        keys.remove(new RowKey(new Object[] {new UUID(round, i)}));
      }
    }
    keys.put(new RowKey(new Object[] {new UUID(7, 7)}), FILES.get(1), 42);

    // then only the last key is held, and the table did not grow for keys that are gone
    assertThat(keys.size()).isEqualTo(1);
    assertThat(keys.get(new RowKey(new Object[] {new UUID(7, 7)}))).isEqualTo(new PrimaryKeyIndex.Location(FILES.get(1), 42));
    assertThat(keys.get(new RowKey(new Object[] {new UUID(49, 7)}))).isNull();
    assertThat(keys.footprintBytes()).isLessThanOrEqualTo(2048 * 24L);
  }
}
