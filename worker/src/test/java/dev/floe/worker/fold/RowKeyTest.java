package dev.floe.worker.fold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** A row key is its values: equal exactly when they are, whether it holds one value alone or an array of several. */
class RowKeyTest {
  @Property(tries = 500)
  void keysAreEqualExactlyWhenTheirValuesAre(@ForAll("values") List<Object> a, @ForAll("values") List<Object> b) {
    RowKey x = new RowKey(a.toArray());
    RowKey y = new RowKey(b.toArray());

    assertThat(x.equals(y)).isEqualTo(Arrays.equals(a.toArray(), b.toArray()));
    if (x.equals(y)) {
      assertThat(x.hashCode()).isEqualTo(y.hashCode());
    }
    assertThat(x.hashCode()).isEqualTo(Arrays.hashCode(a.toArray()));
    assertThat(x.size()).isEqualTo(a.size());
    for (int i = 0; i < a.size(); i++) {
      assertThat(x.get(i)).isEqualTo(a.get(i));
    }
    assertThat(x.toString()).isEqualTo(Arrays.toString(a.toArray()));
  }

  @Test
  void aKeyOfOneValueHasNoSecond() {
    assertThatThrownBy(() -> new RowKey(new Object[] {7L}).get(1)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Provide
  Arbitrary<List<Object>> values() {
    // few distinct values, so that equal keys are common; a long and an int of one number differ
    Arbitrary<Object> value = Arbitraries.oneOf(
        Arbitraries.longs().between(-2, 2).map(v -> (Object) v),
        Arbitraries.integers().between(-2, 2).map(v -> (Object) v),
        Arbitraries.of("a", "b"),
        Arbitraries.just(null));
    return value.list().ofMinSize(1).ofMaxSize(3);
  }
}
