package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** A Connect decimal's unscaled bytes read into a compact BigDecimal equal those read through BigInteger, the reference. */
class UnscaledDecimalTest {
  @Property
  void anyUnscaledValueReadsAsBigIntegerReadsIt(@ForAll @Size(min = 1, max = 17) byte[] unscaled, @ForAll @IntRange(min = 0, max = 38) int scale) {
    BigDecimal reference = new BigDecimal(new BigInteger(unscaled), scale);

    BigDecimal read = ValueCodecs.unscaled(unscaled, scale);

    assertThat(read).isEqualTo(reference); // value and scale
    assertThat(read.precision()).isEqualTo(reference.precision());
    assertThat(read.unscaledValue()).isEqualTo(reference.unscaledValue());
  }

  @Test
  void edgesOfALongAndOfEachWidth() {
    for (long v : new long[] {0, -1, 1, 127, -128, 128, -129, Long.MAX_VALUE, Long.MIN_VALUE, 0x7fff, -0x8000}) {
      byte[] bytes = BigInteger.valueOf(v).toByteArray();
      assertThat(ValueCodecs.unscaled(bytes, 2)).isEqualTo(BigDecimal.valueOf(v, 2));
    }
  }

  @Test
  void anEmptyValueIsRefusedAsBefore() {
    assertThatThrownBy(() -> ValueCodecs.unscaled(new byte[0], 2)).isInstanceOf(NumberFormatException.class);
  }
}
