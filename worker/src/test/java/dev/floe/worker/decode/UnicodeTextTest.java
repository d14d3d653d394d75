package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The UTF-8 check every record's bytes pass before Jackson reads them, against the JDK's strict decoder. */
class UnicodeTextTest {

  @Test
  void wellFormedUtf8PassesAndMalformedBytesAnywhereDoNot() throws Exception {
    Random random = new Random(11);
    String[] pieces = {"a", "Ωmega", "naïve", "日本", "😀", "plain ascii text of some length", "\"quoted\""};
    for (int round = 0; round < 5_000; round++) {
      // given well-formed UTF-8 text, and the same with one byte made 0xFF
      StringBuilder text = new StringBuilder();
      for (int n = 1 + random.nextInt(8); n > 0; n--) {
        text.append(pieces[random.nextInt(pieces.length)]);
      }
      byte[] good = text.toString().getBytes(StandardCharsets.UTF_8);
      byte[] bad = good.clone();
      bad[random.nextInt(bad.length)] = (byte) 0xFF;

      // then the check agrees with the JDK's strict decoder on both
      assertThat(UnicodeText.isUtf8(good, 0, good.length)).isTrue();
      assertThat(UnicodeText.isUtf8(bad, 0, bad.length)).isEqualTo(strictlyDecodes(bad)).isFalse();
    }
  }

  @Test
  void onlyTheBytesOfTheWindowAreChecked() {
    // given ASCII with one byte past it in every place, inside and outside a window
    for (int length = 0; length < 40; length++) {
      for (int offset = 0; offset < 9; offset++) {
        for (int bad = 0; bad < offset + length + 9; bad++) {
          byte[] bytes = "The quick brown fox jumps over the lazy dog, twice over.".getBytes(StandardCharsets.US_ASCII);
          bytes[bad] = (byte) 0xC3; // a lead byte without its continuation
          boolean inside = bad >= offset && bad < offset + length;

          // then the check refuses it only where the window holds it
          assertThat(UnicodeText.isUtf8(bytes, offset, length)).as("offset %d length %d bad at %d", offset, length, bad).isEqualTo(!inside);
        }
      }
    }
  }

  private static boolean strictlyDecodes(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
