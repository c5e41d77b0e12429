package dev.floe.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.iceberg.Catalogs;
import dev.floe.testing.TableFingerprint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Measures floe's sink alone: runs {@link FloeSinkChild} in a child JVM with a capped heap and a GC
 * log, samples the child's resident memory from {@code /proc} while it runs, then checks the table
 * it wrote. The child's RSS is the sink's own (JVM, Kafka client, Arrow and native buffers), not
 * the driver's.
 */
final class MemoryRun {
  /** How long after its pass starts a new sink counts as starting (see the warmup below). */
  static final double SINK_START_SECONDS = 1.0;

  private MemoryRun() {}

  static MemoryProfile run(E2eOptions options, LoadedTopic topic, String bootstrap, Path dir)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path warehouse = dir.resolve("warehouse");
    Path gcLog = dir.resolve("gc.log");
    Path result = dir.resolve("result.json");
    TableIdentifier table = TableIdentifier.of("bench", "memory_" + topic.corpus().id());

    List<String> flags = new ArrayList<>();
    flags.add("-Xlog:gc:file=" + gcLog);
    flags.add("-XX:NativeMemoryTracking=summary"); // the child reports what the JVM accounts for
    if (options.jfr()) {
      flags.add("-XX:StartFlightRecording=filename=" + dir.resolve("floe-sink.jfr") + ",settings=profile");
    }
    List<String> command = ChildJvm.command(options.memoryHeap(), flags, FloeSinkChild.class);
    command.add("bootstrap=" + bootstrap);
    command.add("topic=" + topic.topic());
    command.add("corpus=" + topic.corpus().id());
    command.add("warehouse=" + warehouse);
    command.add("table=" + table);
    command.add("group=memory-" + topic.corpus().id());
    command.add("interval-ms=" + options.commitInterval().toMillis());
    command.add("records=" + options.commitRecords());
    command.add("passes=" + options.memoryPasses());
    command.add("encode-threads=" + options.floeEncodeThreads());
    command.add("decode-ahead=" + options.floeDecodeAhead());
    command.add("result=" + result);

    Path log = dir.resolve("child.log");
    long launched = System.nanoTime();
    long launchedMillis = System.currentTimeMillis();
    ProcessBuilder launch = new ProcessBuilder(command);
    if (options.memoryMallocArenas() > 0) {
      launch.environment().put("MALLOC_ARENA_MAX", Integer.toString(options.memoryMallocArenas()));
    } else {
      launch.environment().remove("MALLOC_ARENA_MAX");
    }
    Process child = launch
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    child.getOutputStream().close();
    List<double[]> samples = new ArrayList<>();
    double peakRss = 0;
    long deadline = launched + options.runTimeout().multipliedBy(options.memoryPasses()).plus(Duration.ofMinutes(1)).toNanos();
    while (child.isAlive() && System.nanoTime() < deadline) {
      var status = ProcStatus.of(child.pid());
      if (status.isPresent()) {
        double t = (System.nanoTime() - launched) / 1e9;
        samples.add(new double[] {t, status.get().rssKib() / 1024.0});
        peakRss = Math.max(peakRss, status.get().peakRssKib() / 1024.0);
      }
      child.waitFor(options.memorySample().toMillis(), TimeUnit.MILLISECONDS);
    }
    if (child.isAlive()) {
      child.destroyForcibly();
      child.waitFor();
      return failed(options, topic, "the sink child did not finish in time; see " + log);
    }
    if (child.exitValue() != 0) {
      return failed(options, topic, "the sink child exited with " + child.exitValue() + "; see " + log + ":\n"
          + tail(log, 30));
    }

    JsonNode r = new ObjectMapper().readTree(result.toFile());
    double seconds = 0;
    for (JsonNode s : r.path("passSeconds")) {
      seconds += s.asDouble();
    }
    GcLog gc = GcLog.read(gcLog);
    long peakHeap = Math.max(gc.peakBeforeGcBytes(), r.path("peakHeapUsedSampledBytes").asLong());
    String failure = null;
    Catalog catalog = Catalogs.embedded(warehouse);
    try {
      TableFingerprint actual = TableFingerprint.of(catalog.loadTable(table));
      TableFingerprint expected = new TableFingerprint(topic.expected().rows() * options.memoryPasses(),
          topic.expected().hashSum() * options.memoryPasses());
      if (!actual.equals(expected)) {
        failure = "table " + actual + " != expected " + expected;
      }
    } finally {
      if (catalog instanceof AutoCloseable c) {
        try {
          c.close();
        } catch (Exception ignored) {
          // only the SQLite connection
        }
      }
    }

    // Warmup, with several passes: the first pass (the JVM's code, heap and allocator reach their
    // working size) and the second sink's first second (it starts its threads and takes its fetch
    // and writer buffers). With one pass: its first 30%.
    double end = samples.isEmpty() ? 0 : samples.getLast()[0];
    JsonNode starts = r.path("passStartMillis");
    double warmupEnd = options.memoryPasses() > 1 && starts.size() > 1
        ? (starts.get(1).asLong() - launchedMillis) / 1e3 + SINK_START_SECONDS
        : 0.3 * end;
    List<double[]> afterWarmup = samples.stream().filter(s -> s[0] >= warmupEnd).toList();
    double first = afterWarmup.isEmpty() ? Double.NaN : afterWarmup.getFirst()[1];
    double max = afterWarmup.stream().mapToDouble(s -> s[1]).max().orElse(Double.NaN);
    double last = afterWarmup.isEmpty() ? Double.NaN : afterWarmup.getLast()[1];
    long events = topic.events();
    return new MemoryProfile(topic.corpus().id(), events, options.memoryPasses(), options.memoryHeap(), seconds,
        events * options.memoryPasses() / seconds, peakHeap / (1024.0 * 1024), gc.collections(),
        gc.maxCommittedBytes() / (1024.0 * 1024), mib(r.path("nmtCommittedBytes").asLong(-1)), peakRss,
        samples, warmupEnd, first, max, last, failure == null, failure);
  }

  private static double mib(long bytes) {
    return bytes < 0 ? Double.NaN : bytes / (1024.0 * 1024);
  }

  private static MemoryProfile failed(E2eOptions options, LoadedTopic topic, String why) {
    return new MemoryProfile(topic.corpus().id(), topic.events(), options.memoryPasses(), options.memoryHeap(),
        Double.NaN, Double.NaN, Double.NaN, 0, Double.NaN, Double.NaN, Double.NaN, List.of(), Double.NaN, Double.NaN, Double.NaN,
        Double.NaN, false, why);
  }

  static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(cannot read " + file + ": " + e.getMessage() + ")";
    }
  }
}
