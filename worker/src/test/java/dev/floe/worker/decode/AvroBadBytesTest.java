package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.decode.AvroWire.Format;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Whatever becomes of an Avro record's bytes (a byte changed, bytes cut off or added, an id that
 * names another schema), the Avro decoder decodes, skips or rejects it with a bounded reason:
 * nothing else escapes, and no length or count read from the damaged bytes takes the heap down.
 */
class AvroBadBytesTest {
  private static final AvroWire WIRE = new AvroWire();
  private static final List<RawRecord> AVRO = avroCaptures();
  private static final AvroChangeDecoder DECODER = new AvroChangeDecoder(List.of("id"), WIRE.schemas());

  @Property(tries = 400)
  void damagedRecordsAreDecodedSkippedOrRejectedWithABoundedReason(@ForAll("records") RawRecord base, @ForAll("damage") Damage damage,
      @ForAll @IntRange(min = 0, max = 2) int part) {
    RawRecord damaged = damage.apply(base, part);

    Decoded decoded = DECODER.decode(damaged, null);

    assertThat(decoded).isNotNull();
    if (decoded instanceof Decoded.Rejected r) {
      assertThat(r.rejected().reason()).isNotBlank().hasSizeLessThanOrEqualTo(Reasons.MAX_CHARS);
    }
  }

  @org.junit.jupiter.api.Test
  void aTextValueWhoseBytesAreNotUtf8IsRejectedNotReadWithReplacementCharacters() {
    int checked = 0;
    for (RawRecord base : AVRO) {
      // given a captured record and one of its text values, ASCII, found among the record's bytes
      if (!(DECODER.decode(base, null) instanceof ChangeEvent event) || event.values() == null) {
        continue;
      }
      byte[] text = null;
      for (Object v : event.values()) {
        if (v instanceof String s && s.length() >= 4 && s.chars().allMatch(ch -> ch > 32 && ch < 127)) {
          text = s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
          break;
        }
      }
      int at = text == null ? -1 : indexOf(base.value(), text);
      if (at < 0) {
        continue;
      }
      // when its first byte is one that UTF-8 never holds
      byte[] value = base.value().clone();
      value[at] = (byte) 0xff;
      RawRecord broken = new RawRecord(base.topic(), base.partition(), base.offset(), base.key(), value, base.headers());

      // then the record is rejected for it, not decoded with U+FFFD in place of the byte
      Decoded decoded = DECODER.decode(broken, null);
      assertThat(decoded).isInstanceOf(Decoded.Rejected.class);
      assertThat(((Decoded.Rejected) decoded).rejected().reason()).contains("not UTF-8");
      checked++;
    }
    assertThat(checked).as("records with an ASCII text value to break").isGreaterThanOrEqualTo(2);
  }

  private static int indexOf(byte[] in, byte[] part) {
    outer:
    for (int i = 0; i + part.length <= in.length; i++) {
      for (int j = 0; j < part.length; j++) {
        if (in[i + j] != part[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  @Provide
  Arbitrary<RawRecord> records() {
    return Arbitraries.of(AVRO);
  }

  @Provide
  Arbitrary<Damage> damage() {
    return net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 3), Arbitraries.integers().between(0, 4000),
        Arbitraries.bytes()).as(Damage::new);
  }

  /** One way to damage a record part (the value, the key, or a key-move header). */
  record Damage(int kind, int at, byte with) {
    RawRecord apply(RawRecord r, int part) {
      byte[] target = part == 0 ? r.value() : part == 1 ? r.key() : r.headers().get(DebeziumDecoder.OLD_KEY_HEADER);
      if (target == null || target.length == 0) {
        target = r.value() == null ? new byte[] {0} : r.value();
        part = 0;
      }
      int i = at % target.length;
      byte[] b = switch (kind) {
        case 0 -> { // one byte changed
          byte[] c = target.clone();
          c[i] = with;
          yield c;
        }
        case 1 -> Arrays.copyOf(target, i); // cut off
        case 2 -> { // a byte added in the middle
          byte[] c = new byte[target.length + 1];
          System.arraycopy(target, 0, c, 0, i);
          c[i] = with;
          System.arraycopy(target, i, c, i + 1, target.length - i);
          yield c;
        }
        default -> { // another schema's id (or none that exists) in the frame
          byte[] c = target.clone();
          if (c.length >= 5) {
            c[4] = (byte) (with & 0x0f);
          }
          yield c;
        }
      };
      Map<String, byte[]> headers = new HashMap<>(r.headers());
      if (part == 2) {
        headers.put(DebeziumDecoder.OLD_KEY_HEADER, b);
      }
      return new RawRecord(r.topic(), r.partition(), r.offset(), part == 1 ? b : r.key(), part == 0 ? b : r.value(), headers);
    }
  }

  private static List<RawRecord> avroCaptures() {
    try {
      List<RawRecord> json = new ArrayList<>(AvroMatchesJsonTest.captured("/debezium/pg15-debezium-3.6.1.jsonl"));
      json.addAll(AvroMatchesJsonTest.captured("/debezium/pg15-debezium-3.6.1-key-update.jsonl"));
      List<RawRecord> out = new ArrayList<>();
      for (Format f : Format.values()) {
        json.forEach(r -> out.add(WIRE.rewrite(r, f)));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
