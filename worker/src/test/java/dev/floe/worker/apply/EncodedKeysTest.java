package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.fold.RowKey;
import java.math.BigDecimal;
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
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The arena-encoded key store behaves as a map from key to location, whatever the operations. */
class EncodedKeysTest {
  static final Type[] COMPOSITE = {Types.StringType.get(), Types.LongType.get()};
  static final List<DataFile> FILES = List.of(file("a"), file("b"), file("c"), file("d"));

  @Property
  void behavesAsAMapUnderPutsRemovesAndFileDrops(@ForAll("ops") List<KeyLocationsModel.Op> ops) {
    KeyLocationsModel.assertBehavesAsAMap(new EncodedKeys(COMPOSITE, 64), ops); // reclaim removed keys' space early and often
  }

  @Provide
  Arbitrary<List<KeyLocationsModel.Op>> ops() {
    Arbitrary<Integer> kind = Arbitraries.frequency(Tuple.of(6, 0), Tuple.of(3, 1), Tuple.of(1, 2));
    Arbitrary<String> name = Arbitraries.strings().ofMaxLength(40).injectDuplicates(0.5);
    Arbitrary<Long> part = Arbitraries.longs().between(-3, 3);
    Arbitrary<Integer> file = Arbitraries.integers().between(0, FILES.size() - 1);
    Arbitrary<Long> position = Arbitraries.longs().between(0, (1L << 40) - 1);
    return Combinators.combine(kind, name, part, file, position)
        .as((k, n, p, f, pos) -> new KeyLocationsModel.Op(k, new RowKey(new Object[] {n, p}), f, pos)).list().ofMaxSize(3_000);
  }

  @Test
  void uuidDecimalAndIntegerKeysComeBackAsTheValuesTheyWere() {
    Type[] types = {Types.UUIDType.get(), Types.DecimalType.of(12, 2), Types.IntegerType.get(), Types.BooleanType.get()};
    EncodedKeys keys = new EncodedKeys(types);
    RowKey key = new RowKey(new Object[] {UUID.fromString("9c1f4a3e-1b7d-4e8a-9a53-0f2f5d4c6b21"), new BigDecimal("1234.50"), -7, true});
    keys.put(key, FILES.get(1), 42);

    assertThat(keys.get(new RowKey(new Object[] {UUID.fromString("9c1f4a3e-1b7d-4e8a-9a53-0f2f5d4c6b21"), new BigDecimal("1234.50"), -7, true})))
        .isEqualTo(new PrimaryKeyIndex.Location(FILES.get(1), 42));
    keys.forEach((k, l) -> assertThat(k).isEqualTo(key));
  }

  @Test
  void aStringKeyCostsAFractionOfABoxedRowKey() {
    EncodedKeys keys = new EncodedKeys(new Type[] {Types.StringType.get()});
    int n = 200_000;
    for (int i = 0; i < n; i++) {
      keys.put(new RowKey(new Object[] {UUID.nameUUIDFromBytes(new byte[] {(byte) i, (byte) (i >> 8), (byte) (i >> 16)}).toString()}), FILES.get(i % 4), i);
    }
    double perKey = (double) keys.footprintBytes() / n;
    System.out.printf("encoded string keys (36-char UUID text): %.0f bytes/key%n", perKey);
    assertThat(perKey).isLessThan(110); // a HashMap<RowKey, Location> of the same keys holds ~200
  }

  private static DataFile file(String name) {
    return DataFiles.builder(PartitionSpec.unpartitioned()).withPath("/warehouse/t/data/" + name + ".parquet")
        .withFormat(FileFormat.PARQUET).withFileSizeInBytes(100).withRecordCount(10).build();
  }
}
