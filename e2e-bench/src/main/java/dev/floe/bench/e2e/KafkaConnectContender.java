package dev.floe.bench.e2e;

import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.LocalConnectWorker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;

/**
 * Apache Iceberg's Kafka Connect sink ({@code org.apache.iceberg.connect.IcebergSinkConnector}) on
 * a standalone Connect worker in its own JVM, started once and reused by every run (so its JIT is
 * as warm as the driver's). Each run submits a new connector with its own control topic, pointed
 * at the run's table in the same embedded catalog (JDBC on the same SQLite file, same warehouse),
 * and waits until the table holds every record.
 *
 * <p>The sink commits only on its interval (no record-count trigger) and has no stop-at-end, so the
 * time to the last commit includes up to one interval of waiting. The measured time is therefore
 * the time until its task has put every record into its Iceberg writers (Connect's {@code
 * sink-record-send-total}, read over JMX): it excludes closing the last files and the last commit,
 * which floe's and the stock sink's times include, and favours Kafka Connect. The time to the
 * last commit is reported beside it.
 */
final class KafkaConnectContender implements Contender {
  private static final Duration POLL = Duration.ofMillis(100);
  /** The fetch settings of floe's sink and bare consume, given to every connector's consumer. */
  static final Map<String, String> CONSUMER = Collections.unmodifiableSortedMap(new TreeMap<>(Map.of(
      "max.poll.records", "10000",
      "max.partition.fetch.bytes", Integer.toString(8 << 20),
      "fetch.max.bytes", Integer.toString(64 << 20),
      "receive.buffer.bytes", Integer.toString(1 << 20))));

  /**
   * Which sink connector runs: Iceberg's (on JsonConverter maps), floe's (on raw bytes, from its
   * plugin folder), or the floor: a connector that drops every record (on raw bytes), what the
   * worker alone costs.
   */
  enum Connector {
    ICEBERG("kafka-connect", "org.apache.iceberg.connect.IcebergSinkConnector"),
    FLOE("floe-connect", "dev.floe.connect.FloeIcebergSinkConnector"),
    FLOOR("connect-floor", "dev.floe.bench.connect.DiscardingSinkConnector");

    final String id;
    final String className;

    Connector(String id, String className) {
      this.id = id;
      this.className = className;
    }
  }

  private final Path workDir;
  private final Path classpathFile;
  private final Connector connector;
  private final Path pluginPath;
  private final int tasks;
  private final List<String> jvmOptions;
  private LocalConnectWorker worker;
  private int runs;

  KafkaConnectContender(
      Path workDir, Path classpathFile, Connector connector, Path pluginPath, int tasks, List<String> jvmOptions) {
    this.workDir = workDir;
    this.classpathFile = classpathFile;
    this.connector = connector;
    this.pluginPath = pluginPath;
    this.tasks = tasks;
    this.jvmOptions = List.copyOf(jvmOptions);
  }

  @Override
  public String id() {
    return connector.id;
  }

  @Override
  public String description() {
    if (connector == Connector.FLOOR) {
      return "the floor of a Connect worker: a sink connector that drops every record, on the same standalone "
          + "Connect 4.1.1 worker setup (separate JVM " + String.join(" ", jvmOptions) + "), tasks.max=" + tasks
          + ", ByteArrayConverter values, the consumer fetch settings of floe's sink (" + CONSUMER + "). Timed "
          + "until its tasks have been handed every record (JMX sink-record-send-total): the worker's consumer, "
          + "converters and SinkRecords, no sink work. Nothing is written, so its output is not validated";
    }
    if (connector == Connector.FLOE) {
      return "floe's FloeIcebergSinkConnector (plugin.path) on a standalone Connect 4.1.1 worker (separate JVM "
          + String.join(" ", jvmOptions) + "), tasks.max=" + tasks + ", ByteArrayConverter values, the same "
          + "commit cadence as floe's sink (interval or records), the consumer fetch settings of floe's sink ("
          + CONSUMER + "). Timed until its tasks have put every record (JMX sink-record-send-total); the time to "
          + "the last commit is in each run's note";
    }
    return "Apache Iceberg Kafka Connect sink 1.11.0 on a standalone Connect 4.1.1 worker (separate JVM "
        + String.join(" ", jvmOptions) + "), tasks.max=" + tasks + ", JsonConverter without schemas, "
        + "the consumer fetch settings of floe's sink (" + CONSUMER + "), "
        + "worker offset.flush.interval.ms=10000. Timed until its task has put every record into its Iceberg "
        + "writers (JMX sink-record-send-total): its commits run only on the "
        + "interval, through the control topic, so the time to the last commit (in each run's note) adds up to "
        + "an interval plus the worker's poll wait; the put time leaves out closing the last files and the "
        + "last commit, which the other sinks' times include -- it favours Kafka Connect";
  }

  @Override
  public boolean writesTable() {
    return connector != Connector.FLOOR;
  }

  @Override
  public OptionalLong startProcess(String bootstrapServers) throws Exception {
    if (worker == null || !worker.isAlive()) {
      LocalConnectWorker.Builder builder =
          LocalConnectWorker.builder(workDir, classpathFile, bootstrapServers).jvmOptions(jvmOptions);
      if (connector == Connector.FLOE) {
        builder.pluginPath(pluginPath);
      }
      worker = builder.start();
    }
    return OptionalLong.of(worker.pid());
  }

  @Override
  public Outcome run(RunSpec run) throws Exception {
    startProcess(run.bootstrapServers());
    String name = connector.id + "-" + run.table().name().replace('_', '-');
    String controlTopic = "control-" + name + "-" + (++runs);
    Topics.create(run.bootstrapServers(), controlTopic, 1);

    long expected = run.topic().events();
    long start = System.nanoTime();
    worker.createConnector(name, connectorConfig(run, controlTopic));
    long deadline = start + run.timeout().toNanos();
    long putNanos = -1;
    long committedNanos = -1;
    long put = 0;
    long nextStatusCheck = 0;
    try {
      while (System.nanoTime() < deadline) {
        long now = System.nanoTime();
        if (putNanos < 0 && (put = worker.recordsPut(name)) >= expected) {
          putNanos = now - start;
          if (connector == Connector.FLOOR) {
            committedNanos = putNanos; // nothing to commit
            break;
          }
        }
        if (connector != Connector.FLOOR && committedRows(run.catalog().loadTable(run.table())) >= expected) {
          committedNanos = now - start;
          if (putNanos < 0) {
            putNanos = committedNanos; // both crossed between two polls
          }
          break;
        }
        if (now > nextStatusCheck) {
          String failure = worker.failure(name);
          if (failure != null) {
            throw new IllegalStateException("Kafka Connect task failed: " + failure);
          }
          nextStatusCheck = now + Duration.ofSeconds(2).toNanos();
        }
        Thread.sleep(POLL.toMillis());
      }
    } finally {
      worker.deleteConnector(name);
    }
    if (committedNanos < 0) {
      return new Outcome(System.nanoTime() - start, -1, -1, "timed out; see " + worker.log());
    }
    if (connector == Connector.FLOOR) {
      // Connect counts the records handed over, not their bytes.
      return new Outcome(putNanos, put, -1, String.format("all records handed to the tasks after %.2f s", putNanos / 1e9));
    }
    return new Outcome(putNanos, expected, -1, committedNanos,
        String.format("all records put after %.2f s, all committed after %.2f s", putNanos / 1e9, committedNanos / 1e9));
  }

  private Map<String, String> connectorConfig(RunSpec run, String controlTopic) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", connector.className);
    if (connector != Connector.ICEBERG) {
      c.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
      c.put("floe.commit.records", Long.toString(run.cadence().records()));
    }
    c.put("tasks.max", Integer.toString(tasks));
    // Every connector's consumer fetches as floe's sink and bare consume do (Connect's defaults:
    // 500 records a poll, 1 MiB per partition, a 64 KiB socket buffer).
    CONSUMER.forEach((key, value) -> c.put("consumer.override." + key, value));
    c.put("topics", run.topic().topic());
    c.put("iceberg.tables", run.table().toString());
    // The embedded catalog as floe builds it: Iceberg's JDBC catalog named "floe" on SQLite.
    c.put("iceberg.catalog", Catalogs.EMBEDDED_NAME);
    c.put("iceberg.catalog.type", "jdbc");
    c.put("iceberg.catalog.uri", "jdbc:sqlite:" + run.warehouse().toAbsolutePath().resolve("catalog.db"));
    c.put("iceberg.catalog.warehouse", run.warehouse().toAbsolutePath().toString());
    c.put("iceberg.control.topic", controlTopic);
    c.put("iceberg.control.commit.interval-ms", Long.toString(run.cadence().interval().toMillis()));
    c.put("iceberg.kafka.bootstrap.servers", run.bootstrapServers());
    return c;
  }

  private static long committedRows(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return 0;
    }
    String total = current.summary().get(SnapshotSummary.TOTAL_RECORDS_PROP);
    return total == null ? 0 : Long.parseLong(total);
  }

  @Override
  public void close() {
    if (worker != null) {
      worker.close();
      worker = null;
    }
  }
}
