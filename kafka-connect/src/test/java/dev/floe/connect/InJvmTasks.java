package dev.floe.connect;

import dev.floe.iceberg.Catalogs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * floe's sink tasks driven in this JVM, without a worker, on one partition of one topic and a
 * table of the embedded catalog: for the task's own contract (fencing, failures), where a real
 * worker could not be made to fail at the moment a test needs. Connect's part, the task context,
 * only records what a task asks of it.
 */
final class InJvmTasks {
  static final TopicPartition TP = new TopicPartition("events", 0);
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));

  private InJvmTasks() {}

  /** Creates the unpartitioned v2 table {@code db.<name>} in the embedded catalog at {@code warehouse}. */
  static TableIdentifier createTable(Catalog catalog, String name) {
    TableIdentifier id = TableIdentifier.of("db", name);
    if (!((SupportsNamespaces) catalog).namespaceExists(Namespace.of("db"))) {
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
    }
    catalog.createTable(id, SCHEMA, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    return id;
  }

  /** A task config writing bytes to {@code table}, ending a cycle only every {@code cycleRecords} records. */
  static Map<String, String> config(String connector, Path warehouse, TableIdentifier table, int cycleRecords) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("name", connector);
    config.put("connector.class", FloeIcebergSinkConnector.class.getName());
    config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    config.put("iceberg.tables", table.toString());
    config.put("iceberg.catalog", Catalogs.EMBEDDED_NAME);
    Catalogs.embeddedProperties(warehouse).forEach((k, v) -> config.put("iceberg.catalog." + k, v));
    config.put("iceberg.control.commit.interval-ms", "600000"); // only the record count ends a cycle
    config.put("floe.commit.records", Integer.toString(cycleRecords));
    config.put(ConnectorSettings.TASK_INDEX, "0");
    return config;
  }

  /**
   * {@code config} with its embedded catalog opened as {@code catalog}, a subclass of Iceberg's
   * JdbcCatalog that the test steers (a held commit, failing writes).
   */
  static Map<String, String> throughCatalog(Map<String, String> config, Class<? extends JdbcCatalog> catalog) {
    config.put("iceberg.catalog.catalog-impl", catalog.getName());
    config.remove("iceberg.catalog.type");
    return config;
  }

  /** A task config writing bytes to the tables the records' field {@code to} names (dynamic routing). */
  static Map<String, String> dynamicConfig(String connector, Path warehouse, int cycleRecords) {
    Map<String, String> config = config(connector, warehouse, TableIdentifier.of("db", "any"), cycleRecords);
    config.remove("iceberg.tables");
    config.put("iceberg.tables.dynamic-enabled", "true");
    config.put("iceberg.tables.route-field", "to");
    return config;
  }

  /**
   * A task config writing bytes to {@code tables} by the records' field {@code to}, which holds a
   * table's name without its namespace ({@link #routed}).
   */
  static Map<String, String> routedConfig(String connector, Path warehouse, int cycleRecords, TableIdentifier... tables) {
    Map<String, String> config = config(connector, warehouse, tables[0], cycleRecords);
    List<String> names = new ArrayList<>();
    for (TableIdentifier table : tables) {
      names.add(table.toString());
      config.put("iceberg.table." + table + ".route-regex", table.name());
    }
    config.put("iceberg.tables", String.join(",", names));
    config.put("iceberg.tables.route-field", "to");
    return config;
  }

  /** Records {@code from..to-1} of {@link #TP}, each with a field {@code to} naming its table. */
  static List<SinkRecord> routed(long from, long to, java.util.function.LongFunction<String> table) {
    List<SinkRecord> out = new ArrayList<>();
    for (long offset = from; offset < to; offset++) {
      out.add(record(offset, ("{\"id\":" + offset + ",\"name\":\"n" + offset + "\",\"to\":\"" + table.apply(offset) + "\"}")
          .getBytes(StandardCharsets.UTF_8)));
    }
    return out;
  }

  static Map<String, String> withTaskIndex(Map<String, String> config, int index) {
    Map<String, String> out = new HashMap<>(config);
    out.put(ConnectorSettings.TASK_INDEX, Integer.toString(index));
    return out;
  }

  /**
   * One run of a task on {@link #TP}: started, opened, given each of {@code puts}, and stopped once
   * it reports offset {@code next} committed.
   *
   * @return the rewinds the task asked of Connect when it opened the partition
   */
  @SafeVarargs
  static List<Map<TopicPartition, Long>> run(Map<String, String> config, long next, List<SinkRecord>... puts)
      throws InterruptedException {
    RecordingContext context = new RecordingContext();
    FloeIcebergSinkTask task = started(config, context);
    try {
      task.open(List.of(TP));
      List<Map<TopicPartition, Long>> rewinds = List.copyOf(context.rewinds);
      for (List<SinkRecord> records : puts) {
        task.put(records);
      }
      awaitCommitted(task, next);
      return rewinds;
    } finally {
      task.stop();
    }
  }

  /** A task initialized with {@code context} and started on {@code config}. */
  static FloeIcebergSinkTask started(Map<String, String> config, RecordingContext context) {
    FloeIcebergSinkTask task = new FloeIcebergSinkTask();
    task.initialize(context);
    task.start(config);
    return task;
  }

  static void awaitCommitted(FloeIcebergSinkTask task, long next) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() < deadline) {
      OffsetAndMetadata committed = task.preCommit(Map.of()).get(TP);
      if (committed != null && committed.offset() == next) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the task did not report offset " + next + " as committed within 30 s");
  }

  /** Records {@code from..to-1} of {@link #TP}, each {@code {"id":<offset>,"name":"n<offset>"}}. */
  static List<SinkRecord> records(long from, long to) {
    List<SinkRecord> out = new ArrayList<>();
    for (long offset = from; offset < to; offset++) {
      out.add(record(offset, ("{\"id\":" + offset + ",\"name\":\"n" + offset + "\"}").getBytes(StandardCharsets.UTF_8)));
    }
    return out;
  }

  static SinkRecord record(long offset, Object value) {
    return new SinkRecord(TP.topic(), TP.partition(), null, null, null, value, offset);
  }

  /** id -> how many rows have it. */
  static Map<Long, Integer> ids(Table table) throws IOException {
    table.refresh();
    Map<Long, Integer> out = new TreeMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record row : rows) {
        out.merge((Long) row.getField("id"), 1, Integer::sum);
      }
    }
    return out;
  }

  /** Each of {@code from..to-1} once. */
  static Map<Long, Integer> ids(long from, long to) {
    Map<Long, Integer> out = new TreeMap<>();
    for (long id = from; id < to; id++) {
      out.put(id, 1);
    }
    return out;
  }

  /** Connect's side of a task, as far as these tasks use it: the rewinds they ask for, and an optional errant record reporter. */
  static final class RecordingContext implements SinkTaskContext {
    final List<Map<TopicPartition, Long>> rewinds = new ArrayList<>();
    private final ErrantRecordReporter reporter;

    RecordingContext() {
      this(null);
    }

    /** With {@code reporter} standing in for the worker's dead-letter queue. */
    RecordingContext(BiFunction<SinkRecord, Throwable, Future<Void>> reporter) {
      this.reporter = reporter == null ? null : reporter::apply;
    }

    @Override
    public Map<String, String> configs() {
      return Map.of();
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {
      rewinds.add(new HashMap<>(offsets));
    }

    @Override
    public void offset(TopicPartition tp, long offset) {
      offset(Map.of(tp, offset));
    }

    @Override
    public void timeout(long timeoutMs) {}

    @Override
    public Set<TopicPartition> assignment() {
      return Set.of(TP);
    }

    @Override
    public void pause(TopicPartition... partitions) {}

    @Override
    public void resume(TopicPartition... partitions) {}

    @Override
    public void requestCommit() {}

    @Override
    public ErrantRecordReporter errantRecordReporter() {
      return reporter;
    }

    @Override
    public PluginMetrics pluginMetrics() {
      return null;
    }
  }
}
