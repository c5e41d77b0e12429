package dev.floe.bench.e2e;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The measured (non-warmup) runs of one contender on one corpus: medians and ranges over the
 * valid runs, and how many runs failed validation (those are not timed).
 */
public record Summary(
    String corpus,
    String contender,
    int validRuns,
    int failedRuns,
    double medianMessagesPerSecond,
    double minMessagesPerSecond,
    double maxMessagesPerSecond,
    double medianMegabytesPerSecond,
    double minMegabytesPerSecond,
    double maxMegabytesPerSecond,
    double medianSeconds) {

  static Summary of(String corpus, String contender, List<RunResult> runs) {
    List<RunResult> measured = runs.stream()
        .filter(r -> !r.warmup() && r.corpus().equals(corpus) && r.contender().equals(contender))
        .toList();
    List<RunResult> valid = measured.stream().filter(RunResult::valid).toList();
    int failed = measured.size() - valid.size();
    if (valid.isEmpty()) {
      return new Summary(corpus, contender, 0, failed, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
          Double.NaN, Double.NaN);
    }
    List<Double> msg = sorted(valid.stream().map(RunResult::messagesPerSecond).toList());
    List<Double> mb = sorted(valid.stream().map(RunResult::megabytesPerSecond).toList());
    List<Double> secs = sorted(valid.stream().map(RunResult::seconds).toList());
    return new Summary(corpus, contender, valid.size(), failed, median(msg), msg.getFirst(), msg.getLast(),
        median(mb), mb.getFirst(), mb.getLast(), median(secs));
  }

  boolean ok() {
    return validRuns > 0;
  }

  private static List<Double> sorted(List<Double> values) {
    List<Double> out = new ArrayList<>(values);
    out.sort(Comparator.naturalOrder());
    return out;
  }

  static double median(List<Double> sorted) {
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
