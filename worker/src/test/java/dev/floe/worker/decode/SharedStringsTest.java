package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** A shared string is always equal to the one decoded; a repeated short value is one instance. */
class SharedStringsTest {
  @Property
  void aSharedStringEqualsTheStringDecoded(@ForAll @Size(max = 50) List<String> decoded) {
    for (String s : decoded) {
      String copy = new String(s.toCharArray());

      assertThat(SharedStrings.shared(copy)).isEqualTo(s);
    }
  }

  @Test
  void aValueDecodedAgainIsTheInstanceDecodedFirst() {
    String first = SharedStrings.shared(new String("city-42".toCharArray()));

    String again = SharedStrings.shared(new String("city-42".toCharArray()));

    assertThat(again).isSameAs(first);
  }

  @Test
  void stringsOfOneHashAreNeverTakenForEachOther() {
    // "Aa" and "BB" share a hash code, so they share a slot and its hash
    assertThat("Aa".hashCode()).isEqualTo("BB".hashCode());

    assertThat(SharedStrings.shared(new String("Aa".toCharArray()))).isEqualTo("Aa");
    assertThat(SharedStrings.shared(new String("BB".toCharArray()))).isEqualTo("BB");
    assertThat(SharedStrings.shared(new String("Aa".toCharArray()))).isEqualTo("Aa");
  }

  @Test
  void longTextIsNotHeld() {
    String text = "x".repeat(33);

    assertThat(SharedStrings.shared(new String(text.toCharArray()))).isNotSameAs(SharedStrings.shared(new String(text.toCharArray())));
  }

  @Test
  void aValueIsRepeatedOnlyOnceItWasDecodedAgain() {
    // given a value decoded once
    String first = SharedStrings.shared(new String("status-repeated".toCharArray()));
    assertThat(SharedStrings.repeated(first)).as("met once").isFalse();

    // when it is decoded again
    String again = SharedStrings.shared(new String("status-repeated".toCharArray()));

    // then the held instance counts as repeated, an equal instance of its own does not
    assertThat(SharedStrings.repeated(again)).isTrue();
    assertThat(SharedStrings.repeated(new String("status-repeated".toCharArray()))).isFalse();
  }
}
