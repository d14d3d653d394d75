package dev.floe.worker.engine;

import dev.floe.worker.decode.Decoded;
import dev.floe.worker.decode.RawRecord;
import java.util.List;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * Decodes a batch's records, those not decoded ahead ({@link RawRecord#decodedAhead()}), on every core when there are many: decoders
 * are thread-safe, and an engine applying batches by itself (no runner decoding ahead) otherwise
 * spent half its time decoding on one core. What a decode throws is rethrown here, on the calling
 * thread, the first in batch order, as itself.
 */
final class BatchDecode {
  /** Below this many records to decode, one thread: forking costs more than it saves. */
  static final int PARALLEL_FROM = 20_000;

  private BatchDecode() {}

  static Decoded[] decode(List<RawRecord> records, Function<RawRecord, Decoded> decoder) {
    Decoded[] out = new Decoded[records.size()];
    int missing = 0;
    for (int i = 0; i < out.length; i++) {
      out[i] = records.get(i).decodedAhead();
      if (out[i] == null) {
        missing++;
      }
    }
    if (missing == 0) {
      return out;
    }
    if (missing < PARALLEL_FROM) {
      for (int i = 0; i < out.length; i++) {
        if (out[i] == null) {
          out[i] = decoder.apply(records.get(i));
        }
      }
      return out;
    }
    RuntimeException[] failed = new RuntimeException[out.length];
    IntStream.range(0, out.length).parallel().forEach(i -> {
      if (out[i] == null) {
        try {
          out[i] = decoder.apply(records.get(i));
        } catch (RuntimeException e) {
          failed[i] = e;
        }
      }
    });
    for (RuntimeException e : failed) {
      if (e != null) {
        throw e;
      }
    }
    return out;
  }
}
