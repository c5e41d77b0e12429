package dev.floe.flink.bench;

import dev.floe.flink.nexmark.NexmarkEngine;
import dev.floe.flink.nexmark.NexmarkQuery;
import dev.floe.flink.nexmark.NexmarkSuite;
import dev.floe.flink.nexmark.NexmarkTopic;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.testing.ReportNames;
import dev.floe.testing.TableFingerprint;
import dev.floe.testing.WorkDirectory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Nexmark suite on Flink, stock against floe ({@link NexmarkEngine}), query by query, after
 * the floor ({@link NexmarkSuite#floor}: the topic read raw and counted) is timed: one
 * broker with the corpus, one MiniCluster, and per query a warmup pair and measured pairs of runs
 * (alternating which engine goes first), each pair validated ({@link NexmarkSuite#verify}) before
 * it counts. A pair that fails validation, or a job that fails, is reported and not timed. Queries
 * where floe is slower, and those named by {@code --profile}, are then run once more per engine
 * under JFR ({@link RunProfile}) to show where the time goes. Run by
 * {@code scripts/bench-nexmark}; writes {@code <out>/<date>-nexmark.{md,json,png}}.
 */
public final class NexmarkBenchmark {
  static final long SEED = 42;

  /** One query's results: seconds per engine over the measured pairs, the last pair's tables, or why it failed. */
  static final class QueryResult {
    final String query;
    final Map<NexmarkEngine, List<Double>> seconds = new EnumMap<>(NexmarkEngine.class);
    final Map<NexmarkEngine, TableStats> tables = new EnumMap<>(NexmarkEngine.class);
    long rows;
    String failure;
    /** Set when the query was profiled: one more run per engine under JFR, not timed. */
    final Map<NexmarkEngine, RunProfile> profiles = new EnumMap<>(NexmarkEngine.class);

    QueryResult(String query) {
      this.query = query;
      for (NexmarkEngine engine : NexmarkEngine.values()) {
        seconds.put(engine, new ArrayList<>());
      }
    }
  }

  /** What a run left in its table: files (data and delete) and their bytes, from the snapshot summary. */
  record TableStats(long dataFiles, long deleteFiles, long bytes) {
    static TableStats of(NexmarkSuite.Run run) {
      if (run.output().currentSnapshot() == null) {
        return new TableStats(0, 0, 0);
      }
      Map<String, String> summary = run.output().currentSnapshot().summary();
      return new TableStats(
          Long.parseLong(summary.getOrDefault("total-data-files", "0")),
          Long.parseLong(summary.getOrDefault("total-delete-files", "0")),
          Long.parseLong(summary.getOrDefault("total-files-size", "0")));
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options =
        BenchOptions.parse(
            args, "[--queries all|q0,q5,...] [--events N] [--rounds N] [--warmup N] [--profile q0,q5,...] [--out DIR] [--name NAME]");
    int events = Integer.parseInt(options.getOrDefault("events", "1000000"));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
    int warmups = Integer.parseInt(options.getOrDefault("warmup", "1"));
    Path out = Path.of(options.getOrDefault("out", "docs/benchmarks/archive"));
    String queries = options.getOrDefault("queries", "all");
    List<String> names = queries.equals("all") ? NexmarkQuery.NAMES : List.of(queries.split(","));
    String name = options.containsKey("name") ? options.get("name") : ReportNames.today(out, "nexmark");
    List<String> profiled = List.of(options.getOrDefault("profile", "").split(","));

    long started = System.nanoTime();
    List<QueryResult> results = new ArrayList<>();
    List<Double> floor = new ArrayList<>();
    long bids;
    try (WorkDirectory scratch = WorkDirectory.create("floe-bench-nexmark");
        LocalKafkaBroker kafka = LocalKafkaBroker.start(scratch.path().resolve("broker"))) {
      bids = NexmarkTopic.load(kafka, "nexmark", events, SEED);
      try (NexmarkSuite suite = NexmarkSuite.start(kafka.bootstrapServers(), "nexmark", scratch.path())) {
        for (int round = -warmups; round < rounds; round++) {
          double seconds = suite.floor(events);
          System.out.printf(Locale.ROOT, "[floor %s] %7.2f s  %,d messages%n", round < 0 ? "warmup" : "round " + round, seconds, events);
          if (round >= 0) {
            floor.add(seconds);
          }
        }
        for (String query : names) {
          QueryResult result = measure(suite, NexmarkQuery.load(query), rounds, warmups, bids);
          results.add(result);
          if (profiled.contains(query) || (result.failure == null && ratio(result) < 1.0)) {
            profile(suite, NexmarkQuery.load(query), result);
          }
        }
      }
    }
    new NexmarkReport(events, bids, rounds, warmups, floor, results, (System.nanoTime() - started) / 1e9).write(out, name);
  }

  private static QueryResult measure(NexmarkSuite suite, NexmarkQuery query, int rounds, int warmups, long bids) {
    QueryResult result = new QueryResult(query.name());
    for (int round = -warmups; round < rounds && result.failure == null; round++) {
      List<NexmarkEngine> order =
          Math.floorMod(round, 2) == 0 ? List.of(NexmarkEngine.STOCK, NexmarkEngine.FLOE) : List.of(NexmarkEngine.FLOE, NexmarkEngine.STOCK);
      Map<NexmarkEngine, NexmarkSuite.Run> runs = new EnumMap<>(NexmarkEngine.class);
      try {
        for (NexmarkEngine engine : order) {
          runs.put(engine, suite.run(query, engine));
        }
        TableFingerprint both = NexmarkSuite.verify(runs.get(NexmarkEngine.STOCK), runs.get(NexmarkEngine.FLOE), bids);
        String label = round < 0 ? "warmup " : "round " + round;
        System.out.printf(
            Locale.ROOT,
            "[%s %s] stock %7.2f s  floe %7.2f s  %.2fx  %,d rows  valid%n",
            query.name(), label, runs.get(NexmarkEngine.STOCK).seconds(), runs.get(NexmarkEngine.FLOE).seconds(),
            runs.get(NexmarkEngine.STOCK).seconds() / runs.get(NexmarkEngine.FLOE).seconds(), both.rows());
        if (round >= 0) {
          runs.forEach((engine, run) -> {
            result.seconds.get(engine).add(run.seconds());
            result.tables.put(engine, TableStats.of(run));
          });
          result.rows = query.check().alwaysWrites() ? both.rows() : -1; // q12's rows are timing, not compared
        }
      } catch (Exception | Error e) {
        Throwable root = e;
        while (root.getCause() != null) {
          root = root.getCause();
        }
        result.failure = e.getClass().getSimpleName() + ": " + e.getMessage() + (root == e ? "" : "; root cause " + root);
        e.printStackTrace();
        System.out.printf("[%s] FAILED, not timed: %s%n", query.name(), result.failure);
      } finally {
        runs.values().forEach(suite::drop);
      }
    }
    return result;
  }

  private static double ratio(QueryResult result) {
    return NexmarkReport.median(result.seconds.get(NexmarkEngine.STOCK)) / NexmarkReport.median(result.seconds.get(NexmarkEngine.FLOE));
  }

  /** Where the time goes: one more run per engine under JFR (not timed, its tables dropped). */
  private static void profile(NexmarkSuite suite, NexmarkQuery query, QueryResult result) throws Exception {
    for (NexmarkEngine engine : NexmarkEngine.values()) {
      NexmarkSuite.Run[] run = new NexmarkSuite.Run[1];
      RunProfile profile = RunProfile.of(() -> run[0] = suite.run(query, engine));
      suite.drop(run[0]);
      result.profiles.put(engine, profile);
      System.out.printf(Locale.ROOT, "[%s profile] %s %s%n", query.name(), engine.label(), profile.shares());
    }
  }


}
