package dev.floe.flink.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.floe.flink.bench.NexmarkBenchmark.QueryResult;
import dev.floe.flink.bench.NexmarkBenchmark.TableStats;
import dev.floe.flink.nexmark.NexmarkEngine;
import dev.floe.testing.BarChart;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Nexmark suite's report: per query each engine's median time and range, the ratio stock /
 * floe (over medians; its range over the measured pairs), rows, files and bytes; the geometric
 * mean of the ratios. Writes {@code <name>.md}, {@code .json} and {@code .png}.
 */
record NexmarkReport(
    int events, long bids, int rounds, int warmups, List<Double> floor, List<QueryResult> results, double wholeRunSeconds) {

  void write(Path dir, String name) throws IOException {
    Files.createDirectories(dir);
    List<Map<String, Object>> rows = results.stream().map(NexmarkReport::summary).toList();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("benchmark", "nexmark-flink");
    doc.put("events", events);
    doc.put("bids", bids);
    doc.put("rounds", rounds);
    doc.put("warmups", warmups);
    doc.put("machine", machine());
    doc.put("whole_run_seconds", wholeRunSeconds);
    doc.put("floor_seconds", floor);
    doc.put("floor_median_seconds", median(floor));
    doc.put("geometric_mean_ratio", geometricMean(rows));
    doc.put("queries", rows);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve(name + ".json").toFile(), doc);
    writeChart(dir.resolve(name + ".png"), rows);
    Files.writeString(dir.resolve(name + ".md"), markdown(name, rows));
    System.out.println("wrote " + dir.resolve(name + ".md") + ", .json, .png");
  }

  private static Map<String, Object> summary(QueryResult r) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("query", r.query);
    if (r.failure != null) {
      out.put("failure", r.failure);
    }
    List<Double> stock = r.seconds.get(NexmarkEngine.STOCK);
    List<Double> floe = r.seconds.get(NexmarkEngine.FLOE);
    if (stock.isEmpty() || floe.isEmpty()) {
      return out;
    }
    for (NexmarkEngine engine : NexmarkEngine.values()) {
      List<Double> seconds = r.seconds.get(engine);
      TableStats table = r.tables.get(engine);
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("seconds", seconds);
      e.put("median_seconds", median(seconds));
      e.put("min_seconds", seconds.stream().mapToDouble(Double::doubleValue).min().orElseThrow());
      e.put("max_seconds", seconds.stream().mapToDouble(Double::doubleValue).max().orElseThrow());
      e.put("data_files", table.dataFiles());
      e.put("delete_files", table.deleteFiles());
      e.put("bytes", table.bytes());
      out.put(engine.label(), e);
    }
    List<Double> pairRatios = new ArrayList<>();
    for (int i = 0; i < stock.size(); i++) {
      pairRatios.add(stock.get(i) / floe.get(i));
    }
    out.put("ratio", median(stock) / median(floe));
    out.put("pair_ratios", pairRatios);
    out.put("rows", r.rows);
    if (!r.profiles.isEmpty()) {
      Map<String, Object> profiles = new LinkedHashMap<>();
      r.profiles.forEach((engine, p) -> profiles.put(engine.label(), Map.of("samples", p.samples(), "shares", p.shares())));
      out.put("profile", profiles);
    }
    return out;
  }

  private static double geometricMean(List<Map<String, Object>> rows) {
    List<Double> ratios = rows.stream().filter(r -> r.containsKey("ratio")).map(r -> (Double) r.get("ratio")).toList();
    return ratios.isEmpty() ? Double.NaN : Math.exp(ratios.stream().mapToDouble(Math::log).average().orElseThrow());
  }

  private void writeChart(Path png, List<Map<String, Object>> rows) throws IOException {
    List<BarChart.Group> groups = new ArrayList<>();
    for (Map<String, Object> r : rows) {
      String query = (String) r.get("query");
      if (!r.containsKey("ratio")) {
        groups.add(new BarChart.Group(query, List.of(new BarChart.Bar("stock / floe", Double.NaN, Double.NaN, Double.NaN))));
        continue;
      }
      @SuppressWarnings("unchecked")
      List<Double> pairs = (List<Double>) r.get("pair_ratios");
      groups.add(
          new BarChart.Group(
              query,
              List.of(
                  new BarChart.Bar(
                      "stock / floe",
                      (Double) r.get("ratio"),
                      pairs.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
                      pairs.stream().mapToDouble(Double::doubleValue).max().orElseThrow()))));
    }
    BarChart.write(
        png,
        String.format(Locale.ROOT, "Nexmark on Flink, Kafka -> Iceberg: floe's speedup over stock (geomean %.2fx)", geometricMean(rows)),
        String.format(
            Locale.ROOT,
            "%,d events, MiniCluster parallelism 2, 1 s checkpoints; ratio of median times stock / floe over %d pairs, whiskers: range of the pairs' ratios; 1.0 = as fast as stock",
            events, rounds),
        "stock time / floe time",
        List.of("stock / floe"),
        groups);
  }

  private String markdown(String name, List<Map<String, Object>> rows) {
    StringBuilder md = new StringBuilder();
    md.append("# Nexmark on Flink, Kafka -> Iceberg: stock vs floe (").append(name).append(")\n\n");
    md.append("Machine: ").append(machine()).append(String.format(Locale.ROOT, ". Whole run: %.0f s.%n%n", wholeRunSeconds));
    md.append(String.format(Locale.ROOT, """
        **Setup.** `scripts/bench-nexmark`: one real KRaft broker on loopback with %,d Nexmark events
        (%,d bids; Flink's Kafka JSON layout, seed 42, the reference rate of 10M events/s of event
        time) in a 4-partition topic, read from earliest to the latest offset at start
        (`max.poll.records` 8192). One Flink MiniCluster for the whole run: parallelism 2, 1 s
        checkpoints, object reuse, UTC session zone. Every query is the same Flink SQL on both
        engines (`flink-integration/src/test/resources/nexmark/`); each run writes a fresh 4-bucket
        Iceberg v2 table (zstd-3, 128 MiB row groups, 1 MiB pages, 2 MiB dictionaries, 512 MiB
        target files), appends for append-only results and identifier-field upserts for updating
        ones, and is timed from submission to the job's end (after its final commit). Per query %d
        warmup and %d measured pairs, the engine that goes first alternating.

        - `stock`: Flink's `json` format into Iceberg's `iceberg` connector (iceberg-flink-2.1 1.11.0).
        - `floe`: `floe-json` into `floe-iceberg`.

        **Validation.** Every pair (warmups too) is read back with Iceberg's generic reader: the two
        tables must hold the same rows (count and full-value multiset fingerprint), or for q9, q18
        and q19 the same rows on the columns that do not depend on arrival order, or for q12
        (processing-time windows) the bounds that hold regardless of timing. q0 must hold every bid.
        A pair that fails is reported here and not timed.

        **Floor.** The same Kafka table source reading the topic as raw bytes (`'format' = 'raw'`),
        nothing decoded or written, the messages counted: %.2f s median (%.2f..%.2f). No query on
        any engine of this shape can take less, so `stock / floor` is the most any engine could
        gain over stock on a query.

        """, events, bids, warmups, rounds, median(floor), min(floor), max(floor)));
    md.append("| query | stock s (median, range) | floe s (median, range) | stock / floe | stock / floor | rows | stock files (data+delete), MiB | floe files (data+delete), MiB |\n");
    md.append("|---|---|---|---|---|---|---|---|\n");
    for (Map<String, Object> r : rows) {
      if (!r.containsKey("ratio")) {
        md.append("| ").append(r.get("query")).append(" | failed: ").append(String.valueOf(r.get("failure")).replace('|', '/').replace('\n', ' '))
            .append(" | | | | | | |\n");
        continue;
      }
      double stockMedian = (Double) ((Map<?, ?>) r.get("stock")).get("median_seconds");
      long rowCount = (Long) r.get("rows");
      md.append(String.format(Locale.ROOT, "| %s | %s | %s | %.2fx | %.2fx | %s | %s | %s |%n",
          r.get("query"), engineCell(r, "stock"), engineCell(r, "floe"), (Double) r.get("ratio"), stockMedian / median(floor),
          rowCount < 0 ? "not compared" : String.format(Locale.ROOT, "%,d", rowCount),
          filesCell(r, "stock"), filesCell(r, "floe")));
    }
    md.append(String.format(Locale.ROOT, "%n**Geometric mean of stock / floe over %d queries: %.2fx.**%n",
        rows.stream().filter(r -> r.containsKey("ratio")).count(), geometricMean(rows)));
    md.append("\n![chart](").append(name).append(".png)\n");
    profiles(md, rows);
    return md.toString();
  }

  /** The profiled queries: each area's share of each engine's samples, side by side. */
  @SuppressWarnings("unchecked")
  private static void profiles(StringBuilder md, List<Map<String, Object>> rows) {
    List<Map<String, Object>> profiled = rows.stream().filter(r -> r.containsKey("profile")).toList();
    if (profiled.isEmpty()) {
      return;
    }
    md.append("""

        ## Where the time goes

        One more run per engine of each query where floe was slower (and of those named with
        `--profile`), under JFR: samples every 10 ms, Java and native, of the job's threads only
        (Flink tasks and the Kafka source's fetchers), each charged to the pipeline part nearest
        the top of its stack. Shares of each engine's own samples; the sample counts compare the
        engines' busy time.

        """);
    for (Map<String, Object> r : profiled) {
      Map<String, Object> profile = (Map<String, Object>) r.get("profile");
      Map<String, Object> stock = (Map<String, Object>) profile.get("stock");
      Map<String, Object> floe = (Map<String, Object>) profile.get("floe");
      Map<String, Double> stockShares = (Map<String, Double>) stock.get("shares");
      Map<String, Double> floeShares = (Map<String, Double>) floe.get("shares");
      java.util.Set<String> areas = new java.util.LinkedHashSet<>(stockShares.keySet());
      areas.addAll(floeShares.keySet());
      md.append(String.format(Locale.ROOT, "%n**%s** (samples: stock %,d, floe %,d)%n%n| area | stock | floe |%n|---|---|---|%n",
          r.get("query"), (Long) stock.get("samples"), (Long) floe.get("samples")));
      for (String area : areas) {
        md.append(String.format(Locale.ROOT, "| %s | %.1f%% | %.1f%% |%n",
            area, 100 * stockShares.getOrDefault(area, 0.0), 100 * floeShares.getOrDefault(area, 0.0)));
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static String engineCell(Map<String, Object> r, String engine) {
    Map<String, Object> e = (Map<String, Object>) r.get(engine);
    return String.format(Locale.ROOT, "%.2f (%.2f..%.2f)", e.get("median_seconds"), e.get("min_seconds"), e.get("max_seconds"));
  }

  @SuppressWarnings("unchecked")
  private static String filesCell(Map<String, Object> r, String engine) {
    Map<String, Object> e = (Map<String, Object>) r.get(engine);
    return String.format(Locale.ROOT, "%d+%d, %.1f", e.get("data_files"), e.get("delete_files"), (Long) e.get("bytes") / 1048576.0);
  }

  private static double min(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
  }

  private static double max(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
  }

  static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String machine() {
    return String.format(Locale.ROOT, "%d cores, %s %s, %s",
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.vm.name"), System.getProperty("java.vm.version"),
        ManagementFactory.getOperatingSystemMXBean().getName());
  }
}
