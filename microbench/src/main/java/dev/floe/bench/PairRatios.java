package dev.floe.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Helpers of the paired comparisons ({@link TablePairs}, {@link TableAlternating}). */
final class PairRatios {
  private PairRatios() {}

  /** {@code --name value} pairs, each name one of {@code known}; else the usage line. */
  static Map<String, String> options(String[] args, List<String> known, String usage) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      if (!known.contains(args[i]) || i + 1 >= args.length) {
        throw new IllegalArgumentException("usage: " + usage + "; got " + String.join(" ", args));
      }
      options.put(args[i], args[i + 1]);
    }
    return options;
  }

  static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /** "median 3.84x [3.39..4.51]". */
  static String summary(List<Double> ratios) {
    return String.format(
        Locale.ROOT,
        "median %.2fx [%.2f..%.2f]",
        median(ratios),
        ratios.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
        ratios.stream().mapToDouble(Double::doubleValue).max().orElseThrow());
  }
}
