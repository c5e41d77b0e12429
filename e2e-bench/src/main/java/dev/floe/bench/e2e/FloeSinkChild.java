package dev.floe.bench.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.sink.KafkaIcebergSink;
import dev.floe.kafka.sink.SinkConfig;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * floe's sink alone in a JVM, so that its heap and resident memory can be measured from outside
 * ({@link MemoryRun}): reads the whole topic {@code passes} times (a fresh consumer group each
 * time, all into one table) and writes what it saw of its own heap to a JSON file.
 *
 * <p>Arguments, as {@code key=value}: bootstrap, topic, corpus, warehouse, table (ns.name), group,
 * interval-ms, records, passes, result (the JSON file).
 */
public final class FloeSinkChild {
  private FloeSinkChild() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    Corpus corpus = Corpus.of(a.get("corpus"));
    TableIdentifier table = TableIdentifier.parse(a.get("table"));
    int passes = Integer.parseInt(a.get("passes"));
    AtomicLong peakUsed = new AtomicLong();
    Thread sampler = Thread.ofPlatform().daemon().name("heap-sampler").start(() -> sampleHeap(peakUsed));

    Catalog catalog = Catalogs.embedded(Path.of(a.get("warehouse")));
    if (!((SupportsNamespaces) catalog).namespaceExists(table.namespace())) {
      ((SupportsNamespaces) catalog).createNamespace(table.namespace());
    }
    List<Double> passSeconds = new ArrayList<>();
    List<Long> passStartMillis = new ArrayList<>(); // wall clock, so the driver can place its RSS samples
    long rows = 0;
    for (int p = 0; p < passes; p++) {
      SinkConfig config =
          SinkConfig.builder(catalog, a.get("bootstrap"), a.get("group") + "-pass" + p)
              .route(a.get("topic"), table)
              .createTables(corpus.schema(), corpus.spec(), Map.of(TableProperties.FORMAT_VERSION, "2"))
              .commitEvery(Duration.ofMillis(Long.parseLong(a.get("interval-ms"))), Long.parseLong(a.get("records")),
                  Long.MAX_VALUE)
              .stopAtEnd(true)
              .encodeThreads(Integer.parseInt(a.getOrDefault("encode-threads", "1")))
              .decodeAhead(Boolean.parseBoolean(a.getOrDefault("decode-ahead", "true")))
              .build();
      passStartMillis.add(System.currentTimeMillis());
      long start = System.nanoTime();
      try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
        sink.run();
        rows += sink.metrics().getRowsWritten();
      }
      passSeconds.add((System.nanoTime() - start) / 1e9);
    }
    sampler.interrupt();
    if (catalog instanceof AutoCloseable c) {
      c.close();
    }

    long poolPeaks = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        poolPeaks += pool.getPeakUsage().getUsed();
      }
    }
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("rows", rows);
    result.put("passSeconds", passSeconds);
    result.put("passStartMillis", passStartMillis);
    result.put("peakHeapUsedSampledBytes", peakUsed.get());
    result.put("heapPoolPeakSumBytes", poolPeaks);
    result.put("maxHeapBytes", Runtime.getRuntime().maxMemory());
    // What the JVM itself accounts for (run with -XX:NativeMemoryTracking=summary); the rest of
    // the RSS is memory the JVM does not track: the native library's and malloc's.
    String nmt = nativeMemorySummary();
    Matcher total = Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB").matcher(nmt);
    result.put("nmtCommittedBytes", total.find() ? Long.parseLong(total.group(2)) << 10 : -1);
    Files.writeString(Path.of(a.get("result")).resolveSibling("nmt-summary.txt"), nmt);
    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(Path.of(a.get("result")).toFile(), result);
  }

  private static String nativeMemorySummary() {
    try {
      return (String) ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
          new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
    } catch (JMException e) {
      return "native memory summary unavailable: " + e;
    }
  }

  /** Heap in use every 50 ms (between collections it only grows, so this nearly catches the peak). */
  private static void sampleHeap(AtomicLong peak) {
    var memory = ManagementFactory.getMemoryMXBean();
    while (!Thread.currentThread().isInterrupted()) {
      peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        return;
      }
    }
  }
}
