package dev.floe.e2e.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The consume+decode ceiling ratio of one write mode, in rounds: each drain of the stream by a
 * worker sits between two measurements of the ceiling, and its ratio is its rate over their mean.
 * The median of the rounds is the figure to read, because on a shared machine the ceiling alone
 * moved by two thirds between neighbouring minutes of one run. Drains of an alternate worker (an
 * A/B within one run) are kept apart.
 */
final class CeilingRounds {
  private final List<Long> rates = new ArrayList<>();
  private final List<Double> ratios = new ArrayList<>();
  private final List<Long> alternateRates = new ArrayList<>();
  private final List<Double> alternateRatios = new ArrayList<>();
  /** What each drain's worker used from its first poll to lag 0: where a round's seconds went. */
  private final List<Sampler.Usage> used = new ArrayList<>();
  private final List<Sampler.Usage> alternateUsed = new ArrayList<>();

  /**
   * A drain at {@code rate} records per second, between ceilings measured at {@code before} and
   * {@code after}, its worker having used {@code usage}.
   */
  void drained(double rate, double before, double after, boolean alternate, Sampler.Usage usage) {
    (alternate ? alternateRates : rates).add(Math.round(rate));
    (alternate ? alternateRatios : ratios).add(rate / ((before + after) / 2));
    (alternate ? alternateUsed : used).add(usage);
  }

  List<Double> ratios() {
    return ratios;
  }

  List<Double> alternateRatios() {
    return alternateRatios;
  }

  double median() {
    return median(ratios);
  }

  /** What the report holds of these rounds; the alternate's only when {@code alternateFlags} are given. */
  Map<String, Object> report(List<String> alternateFlags) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("recordsPerSecondByRound", rates);
    r.put("ratioToDecodeCeilingByRound", ratios);
    r.put("ratioToDecodeCeilingMedian", median(ratios));
    putUsage(r, "", used);
    if (!alternateFlags.isEmpty()) {
      r.put("roundsAlternate.flags", String.join(" ", alternateFlags));
      r.put("roundsAlternate.recordsPerSecondByRound", alternateRates);
      r.put("roundsAlternate.ratioToDecodeCeilingByRound", alternateRatios);
      r.put("roundsAlternate.ratioToDecodeCeilingMedian", alternateRatios.isEmpty() ? null : median(alternateRatios));
      putUsage(r, "roundsAlternate.", alternateUsed);
    }
    return r;
  }

  private static void putUsage(Map<String, Object> r, String prefix, List<Sampler.Usage> used) {
    r.put(prefix + "worker.cpuSecondsByRound", used.stream().map(u -> round2(u.cpuSeconds())).toList());
    r.put(prefix + "worker.gcPauseSecondsByRound", used.stream().map(u -> round2(u.gcPauseSeconds())).toList());
    r.put(prefix + "worker.jitCompilationSecondsByRound", used.stream().map(u -> round2(u.compilationSeconds())).toList());
  }

  private static double round2(double x) {
    return Math.round(x * 100) / 100.0;
  }

  /** "median of N rounds M.MMx, [r1, r2, ...]" for the printed table. */
  static String describe(List<Double> ratios) {
    return String.format(Locale.ROOT, "median of %d rounds %.2fx, %s", ratios.size(), median(ratios),
        ratios.stream().map(x -> String.format(Locale.ROOT, "%.2f", x)).toList());
  }

  /** The middle value, or the mean of the two middle values of an even count; NaN for none. */
  static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
