package dev.floe.flink.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
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

/** The Flink q0 benchmark's report: {@code <name>.md}, {@code .json} and {@code .png}. */
record FlinkQ0Report(int events, int rounds, int warmups, Map<String, List<Double>> seconds, double wholeRunSeconds) {

  void write(Path dir, String name) throws IOException {
    Files.createDirectories(dir);
    Map<String, Map<String, Object>> summaries = new LinkedHashMap<>();
    seconds.forEach((contender, runs) -> summaries.put(contender, summary(runs)));
    writeJson(dir.resolve(name + ".json"), summaries);
    writeChart(dir.resolve(name + ".png"), summaries);
    Files.writeString(dir.resolve(name + ".md"), markdown(name, summaries));
    System.out.println("wrote " + dir.resolve(name + ".md") + ", .json, .png");
  }

  private Map<String, Object> summary(List<Double> runs) {
    List<Double> sorted = new ArrayList<>(runs);
    sorted.sort(null);
    double median = sorted.size() % 2 == 1
        ? sorted.get(sorted.size() / 2)
        : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("seconds", runs);
    out.put("median_seconds", median);
    out.put("min_seconds", sorted.get(0));
    out.put("max_seconds", sorted.get(sorted.size() - 1));
    out.put("median_msg_per_s", events / median);
    return out;
  }

  private void writeJson(Path json, Map<String, Map<String, Object>> summaries) throws IOException {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("benchmark", "flink-q0");
    doc.put("events", events);
    doc.put("rounds", rounds);
    doc.put("warmups", warmups);
    doc.put("machine", machine());
    doc.put("contenders", summaries);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), doc);
  }

  private void writeChart(Path png, Map<String, Map<String, Object>> summaries) throws IOException {
    List<BarChart.Bar> bars = new ArrayList<>();
    summaries.forEach(
        (contender, s) ->
            bars.add(
                new BarChart.Bar(
                    contender,
                    events / (double) s.get("median_seconds"),
                    events / (double) s.get("max_seconds"),
                    events / (double) s.get("min_seconds"))));
    BarChart.write(
        png,
        "Nexmark q0 in Flink, Kafka -> Iceberg: messages/s",
        String.format(Locale.ROOT, "%,d events, MiniCluster parallelism 2, 1 s checkpoints; median of %d, whiskers: range", events, rounds),
        "messages per second",
        new ArrayList<>(summaries.keySet()),
        List.of(new BarChart.Group("q0", bars)));
  }

  private String markdown(String name, Map<String, Map<String, Object>> summaries) {
    StringBuilder md = new StringBuilder();
    md.append("# Nexmark q0 in Flink, Kafka -> Iceberg, ").append(name, 0, 10).append("\n\n");
    md.append("Machine: ").append(machine()).append(String.format(Locale.ROOT, ". Whole run: %.0f s.%n%n", wholeRunSeconds));
    md.append(String.format(Locale.ROOT, """
        **Setup.** One real KRaft broker on loopback, %,d Nexmark events (Flink's Kafka JSON layout,
        seed 42) in a 4-partition topic, read from earliest to the latest offset at start
        (`max.poll.records` 8192). One Flink MiniCluster for the whole run, parallelism 2, 1 s
        checkpoints, object reuse. Each run writes a fresh 4-bucket (`bucket[4](bid.auction)`)
        Iceberg v2 table in the embedded catalog, table properties zstd-3, 128 MiB row groups,
        1 MiB pages, 2 MiB dictionaries, 512 MiB target files; timed from submission to the job's
        end (after its final commit). %d warmup and %d measured rounds, order alternating.

        - `stock`: Flink's `json` deserializer (`JsonParserRowDataDeserializationSchema`, SQL
          timestamps) into Iceberg's `IcebergSink` (iceberg-flink-2.1 1.11.0).
        - `floe-raw`: `KafkaPayloadDeserializer` into `FloeIcebergSink` (native decode + write).
        - `floe-rowdata`: `floe-json` rows (`FloeJsonRowDataDeserializationSchema`, SQL timestamps)
          into `FloeIcebergSink.forRowData` (its binary rows read into Arrow and written by libfloe).
        - `bare-source`: Flink's Kafka source alone, records counted and dropped: the bound.

        **Validation.** Every run (warmups too) is read back with Iceberg's generic reader; row
        count and full-value fingerprint must equal the corpus's, or the run fails the benchmark.

        """, events, warmups, rounds));
    md.append("| contender | median s | range s | median msg/s | vs stock |\n|---|---|---|---|---|\n");
    Double stock = summaries.containsKey("stock") ? (Double) summaries.get("stock").get("median_seconds") : null;
    summaries.forEach((contender, s) -> {
      double median = (double) s.get("median_seconds");
      md.append(String.format(Locale.ROOT, "| %s | %.2f | %.2f..%.2f | %,.0f | %s |%n",
          contender, median, (double) s.get("min_seconds"), (double) s.get("max_seconds"), events / median,
          stock == null ? "" : String.format(Locale.ROOT, "%.2fx", stock / median)));
    });
    md.append("\n![chart](").append(name).append(".png)\n");
    return md.toString();
  }

  private static String machine() {
    return String.format(Locale.ROOT, "%d cores, %s %s, %s",
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.vm.name"), System.getProperty("java.vm.version"),
        ManagementFactory.getOperatingSystemMXBean().getName());
  }
}
