package dev.floe.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * {@link TableWriteBenchmark}'s one-thread comparison in alternating pairs: floe and Iceberg Java
 * (from JSON) run back to back, each in a JVM fork of its own, the order flipped every other
 * pair; each pair gives the ratio of its two medians. On a VM whose speed drifts within minutes, a
 * ratio of back-to-back runs is steadier than one from a single JMH run, which measures all of one
 * side before the other.
 *
 * <pre>
 * scripts/bench-jmh table-pairs                      # 3 pairs, appends, the benchmark's 3 + 5 iterations
 * scripts/bench-jmh table-pairs --pairs 5 --mode upsert --warmup 2 --iterations 3
 * scripts/bench-jmh table-pairs --pairs 1 --rows 100000 --warmup 0 --iterations 1   # a quick check
 * </pre>
 */
public final class TablePairs {
  private static final String FLOE = "floe";
  private static final String ICEBERG_JAVA = "icebergJava";

  private TablePairs() {}

  public static void main(String[] args) throws RunnerException {
    Map<String, String> options =
        PairRatios.options(
            args,
            List.of("--pairs", "--mode", "--rows", "--warmup", "--iterations"),
            "TablePairs [--pairs N] [--mode append|upsert] [--rows N] [--warmup N] [--iterations N]");
    int pairs = Integer.parseInt(options.getOrDefault("--pairs", "3"));
    String mode = options.getOrDefault("--mode", "append");
    List<Double> ratios = new ArrayList<>();
    for (int pair = 1; pair <= pairs; pair++) {
      List<String> order = pair % 2 == 1 ? List.of(FLOE, ICEBERG_JAVA) : List.of(ICEBERG_JAVA, FLOE);
      Map<String, Double> medians = new LinkedHashMap<>();
      for (String benchmark : order) {
        medians.put(benchmark, PairRatios.median(run(benchmark, mode, options)));
      }
      double ratio = medians.get(ICEBERG_JAVA) / medians.get(FLOE);
      ratios.add(ratio);
      System.out.printf(
          Locale.ROOT,
          "pair %d (%s first): floe %.3f s, Iceberg Java %.3f s -> %.2fx%n",
          pair, order.getFirst(), medians.get(FLOE), medians.get(ICEBERG_JAVA), ratio);
    }
    System.out.printf(
        Locale.ROOT,
        "%s, %d pairs: Iceberg Java / floe (one thread) %s%n",
        mode, pairs, PairRatios.summary(ratios));
  }

  /** One JMH run of one benchmark (the class's fork settings); its measured seconds per op. */
  private static List<Double> run(String benchmark, String mode, Map<String, String> options)
      throws RunnerException {
    OptionsBuilder builder = new OptionsBuilder();
    builder.include(TableWriteBenchmark.class.getName() + "." + benchmark + "$").param("mode", mode);
    if (options.containsKey("--rows")) {
      builder.param("rows", options.get("--rows"));
    }
    if (options.containsKey("--warmup")) {
      builder.warmupIterations(Integer.parseInt(options.get("--warmup")));
    }
    if (options.containsKey("--iterations")) {
      builder.measurementIterations(Integer.parseInt(options.get("--iterations")));
    }
    Collection<RunResult> results = new Runner(builder.build()).run();
    List<Double> seconds = new ArrayList<>();
    for (RunResult result : results) {
      for (BenchmarkResult fork : result.getBenchmarkResults()) {
        for (IterationResult iteration : fork.getIterationResults()) {
          seconds.add(iteration.getPrimaryResult().getScore());
        }
      }
    }
    if (seconds.isEmpty()) {
      throw new IllegalStateException("JMH measured nothing for " + benchmark);
    }
    return seconds;
  }
}
