package dev.floe.flink.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a job's time goes: JFR samples (Java and native, every 10 ms) of the job's own threads
 * -- Flink tasks and the Kafka source's fetchers, not the broker or the test harness -- each
 * charged to the part of the pipeline nearest the top of its stack ({@link #AREAS}).
 */
record RunProfile(long samples, Map<String, Long> byArea) {
  private static final String PASS = "";

  /**
   * Code areas by class-name prefix; the first frame from the top of a stack that matches decides.
   * A null area passes the sample on to the caller: the generated FFM bindings, Flink's row data
   * classes and the JDK are charged to whoever called them.
   */
  private static final List<Map.Entry<String, String>> AREAS =
      List.of(
          Map.entry("dev.floe.ffm.", PASS),
          Map.entry("org.apache.flink.table.data.", PASS),
          Map.entry("java.", PASS),
          Map.entry("jdk.", PASS),
          Map.entry("sun.", PASS),
          Map.entry("dev.floe.flink.format.", "floe-json decode"),
          Map.entry("dev.floe.arrow.NativeRowDecoder", "floe-json decode"),
          Map.entry("dev.floe.", "floe-iceberg write (Arrow, native encode)"),
          Map.entry("org.apache.flink.formats.json.", "json decode"),
          Map.entry("org.apache.flink.shaded.jackson2.", "json decode"),
          Map.entry("com.github.luben.zstd.", "iceberg write (Parquet, zstd)"),
          Map.entry("org.apache.iceberg.", "iceberg write (Parquet, zstd)"),
          Map.entry("org.apache.parquet.", "iceberg write (Parquet, zstd)"),
          Map.entry("org.apache.kafka.", "Kafka consumer"),
          Map.entry("org.apache.flink.connector.kafka.", "Kafka consumer"),
          Map.entry("org.apache.flink.streaming.connectors.kafka.", "Kafka consumer"),
          Map.entry("org.apache.flink.table.runtime.operators.join.", "SQL: join"),
          Map.entry("org.apache.flink.table.runtime.operators.aggregate.", "SQL: aggregate"),
          Map.entry("org.apache.flink.table.runtime.operators.rank.", "SQL: rank / dedup"),
          Map.entry("org.apache.flink.table.runtime.operators.deduplicate.", "SQL: rank / dedup"),
          Map.entry("org.apache.flink.table.runtime.operators.window.", "SQL: window"),
          Map.entry("org.apache.flink.table.runtime.operators.sink.", "SQL: sink materializer"),
          Map.entry("org.apache.flink.runtime.state.", "state"),
          Map.entry("org.apache.flink.table.runtime.typeutils.", "row copies and serializers"),
          Map.entry("org.apache.flink.table.runtime.", "SQL: other operators"),
          Map.entry("org.apache.flink.", "Flink runtime (network, checkpoints)"));

  /** Flink task threads ("Source: ... (1/2)#0") and source fetchers. */
  private static final Pattern JOB_THREAD = Pattern.compile(".*\\(\\d+/\\d+\\)(#\\d+)?$|^Source Data Fetcher.*");

  /** Runs {@code job} under a JFR recording and returns its profile. */
  static RunProfile of(ThrowingRunnable job) throws Exception {
    Path file = Files.createTempFile("floe-nexmark", ".jfr");
    try (Recording recording = new Recording()) {
      recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
      recording.enable("jdk.NativeMethodSample").withPeriod(Duration.ofMillis(10));
      recording.start();
      job.run();
      recording.stop();
      recording.dump(file);
      return read(file);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static RunProfile read(Path file) throws IOException {
    Map<String, Long> byArea = new TreeMap<>();
    long samples = 0;
    for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
      if (event.getThread("sampledThread") == null || event.getStackTrace() == null) {
        continue;
      }
      String thread = event.getThread("sampledThread").getJavaName();
      if (thread == null || !JOB_THREAD.matcher(thread).matches()) {
        continue;
      }
      samples++;
      byArea.merge(area(event.getStackTrace().getFrames()), 1L, Long::sum);
    }
    return new RunProfile(samples, byArea);
  }

  private static String area(List<RecordedFrame> frames) {
    for (RecordedFrame frame : frames) {
      String type = frame.getMethod().getType().getName();
      if (type.indexOf('.') < 0) {
        return "SQL: generated code"; // Flink's code-generated operators live in no package
      }
      String area = AREAS.stream().filter(a -> type.startsWith(a.getKey())).map(Map.Entry::getValue).findFirst().orElse(PASS);
      if (!area.isEmpty()) {
        return area;
      }
    }
    return "other (JDK)";
  }

  /** Each area's share of the samples, largest first. */
  Map<String, Double> shares() {
    Map<String, Double> out = new LinkedHashMap<>();
    byArea.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> out.put(e.getKey(), samples == 0 ? 0 : e.getValue() / (double) samples));
    return out;
  }
}
