package dev.floe.flink.nexmark;

import dev.floe.flink.CountRecords;
import dev.floe.flink.IcebergTableRef;
import dev.floe.iceberg.Catalogs;
import dev.floe.testing.TableFingerprint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * Runs Nexmark queries in Flink SQL over a topic of Nexmark events, each into a fresh Iceberg
 * table, on either {@link NexmarkEngine}: one MiniCluster (parallelism {@value #PARALLELISM}, 1 s
 * checkpoints, object reuse, UTC session zone) and one embedded catalog for all runs. Each output
 * table is a 4-bucket v2 table with the suite's writer settings ({@link #WRITE_PROPERTIES}),
 * created before the job so both engines write the same spec; a query whose output has a primary
 * key upserts by it. Used by the CI-sized suite test and by {@code scripts/bench-nexmark}.
 */
public final class NexmarkSuite implements AutoCloseable {
  public static final int PARALLELISM = 2;

  /** What both engines write with, as table properties: zstd-3, 128 MiB row groups, ... */
  public static final Map<String, String> WRITE_PROPERTIES =
      Map.of(
          "format-version", "2",
          "write.parquet.compression-codec", "zstd",
          "write.parquet.compression-level", "3",
          "write.parquet.row-group-size-bytes", Long.toString(128L << 20),
          "write.parquet.page-size-bytes", Long.toString(1L << 20),
          "write.parquet.dict-size-bytes", Long.toString(2L << 20),
          "write.target-file-size-bytes", Long.toString(512L << 20));

  private static final String NAMESPACE = "nexmark";
  private static final int SIDE_INPUT_KEYS = 10_000;

  private final String bootstrap;
  private final String topic;
  private final Path warehouse;
  private final Path sideInput;
  private final Path checkpoints;
  private final Catalog catalog;
  private final MiniCluster cluster;
  private int tables;

  private NexmarkSuite(String bootstrap, String topic, Path work) throws Exception {
    this.bootstrap = bootstrap;
    this.topic = topic;
    this.warehouse = work.resolve("warehouse");
    this.catalog = Catalogs.embedded(warehouse);
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of(NAMESPACE));
    this.sideInput = writeSideInput(work.resolve("side_input.csv"));
    this.checkpoints = work.resolve("checkpoints");
    this.cluster = startMiniCluster();
    TestStreamEnvironment.setAsContext(cluster, PARALLELISM);
  }

  /** A suite over {@code topic} (Nexmark events, Flink's JSON layout), its files under {@code work}. */
  public static NexmarkSuite start(String bootstrap, String topic, Path work) throws Exception {
    return new NexmarkSuite(bootstrap, topic, work);
  }

  /** One engine's run of one query: its output table and the time from submission to the last commit. */
  public record Run(NexmarkQuery query, NexmarkEngine engine, TableIdentifier id, Table output, double seconds) {}

  /** Runs {@code query} on {@code engine} into a fresh table and waits for the job's end. */
  public Run run(NexmarkQuery query, NexmarkEngine engine) throws Exception {
    String tableName = query.name() + "_" + engine.label() + "_" + (tables++);
    TableIdentifier id = TableIdentifier.of(NAMESPACE, tableName);
    Table output = createOutputTable(query, id);
    StreamTableEnvironment sql = environment(engine);
    sql.executeSql(query.createSink().replace("${SINK}", sinkOptions(engine, tableName, query.upserts())));
    query.views().forEach(sql::executeSql);
    long start = System.nanoTime();
    sql.executeSql(query.insert()).await();
    double seconds = JobWindows.close(query.name() + " " + engine.name().toLowerCase(Locale.ROOT), start);
    output.refresh();
    return new Run(query, engine, id, output, seconds);
  }

  /**
   * The floor: the topic read as raw bytes by the same Kafka table source and counted, nothing
   * decoded or written -- the time a job of this shape takes whatever its format and sink.
   *
   * @return seconds from submission to the job's end
   * @throws IllegalStateException if the job did not see {@code messages} messages
   */
  public double floor(long messages) throws Exception {
    StreamExecutionEnvironment env = configuredEnvironment(Map.of());
    StreamTableEnvironment sql = StreamTableEnvironment.create(env);
    NexmarkQuery.statements(NexmarkQuery.resource("floor.sql").replace("${KAFKA}", kafkaOptions())).forEach(sql::executeSql);
    sql.toDataStream(sql.from("raw_events")).map(new CountRecords<>()).sinkTo(new DiscardingSink<>());
    long start = System.nanoTime();
    JobExecutionResult result = env.execute("nexmark floor");
    double seconds = JobWindows.close("floor", start);
    long counted = result.getAccumulatorResult(CountRecords.NAME);
    if (counted != messages) {
      throw new IllegalStateException("the floor job read " + counted + " messages, the topic has " + messages);
    }
    return seconds;
  }

  /**
   * Checks two runs of one query against each other (and each on its own, see {@link
   * OutputCheck}); {@code bids} is how many bids the topic holds.
   *
   * @return the fingerprint both outputs share
   * @throws IllegalStateException naming the query and the difference
   */
  public static TableFingerprint verify(Run stock, Run floe, long bids) {
    NexmarkQuery query = stock.query();
    TableFingerprint expected = query.check().fingerprint(query.name(), stock.output(), bids);
    TableFingerprint actual = query.check().fingerprint(query.name(), floe.output(), bids);
    if (!expected.equals(actual)) {
      throw new IllegalStateException(
          query.name() + ": " + floe.engine().label() + " wrote " + actual + ", " + stock.engine().label() + " wrote " + expected);
    }
    return expected;
  }

  public void drop(Run run) {
    catalog.dropTable(run.id(), true);
  }

  /** A table environment with the events table, its views, q13's side input and q14's function. */
  private StreamTableEnvironment environment(NexmarkEngine engine) {
    StreamExecutionEnvironment env = configuredEnvironment(engine.settings());
    StreamTableEnvironment sql = StreamTableEnvironment.create(env);
    sql.getConfig().set("table.local-time-zone", "UTC");
    String events =
        NexmarkQuery.resource("events.sql")
            .replace("${KAFKA}", kafkaOptions())
            .replace("${FORMAT}", engine.format())
            .replace("${SIDE_INPUT}", sideInput.toUri().toString());
    NexmarkQuery.statements(events).forEach(sql::executeSql);
    return sql;
  }

  /** The Kafka table source's options: the topic from its earliest to its latest offsets. */
  private String kafkaOptions() {
    return "'connector' = 'kafka', 'topic' = '" + topic + "', "
        + "'properties.bootstrap.servers' = '" + bootstrap + "', 'properties.group.id' = 'nexmark', "
        + "'properties.max.poll.records' = '8192', "
        + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'";
  }

  /** The suite's job settings (and {@code settings} on top): parallelism, checkpoints, object reuse. */
  private StreamExecutionEnvironment configuredEnvironment(Map<String, String> settings) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    // Join and aggregate state outgrows the JobManager's 5 MiB default checkpoint storage.
    Configuration checkpoints = new Configuration();
    checkpoints.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    checkpoints.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, this.checkpoints.toUri().toString());
    env.configure(checkpoints);
    env.setParallelism(PARALLELISM);
    env.configure(Configuration.fromMap(settings));
    env.enableCheckpointing(1_000);
    env.getConfig().enableObjectReuse();
    return env;
  }

  /** The output table in the catalog: the query's columns and key, 4 buckets, the suite's writer settings. */
  private Table createOutputTable(NexmarkQuery query, TableIdentifier id) {
    TableEnvironment scratch = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
    scratch.executeSql(query.createSink().replace("${SINK}", "'connector' = 'blackhole'"));
    ResolvedSchema columns =
        ((TableEnvironmentInternal) scratch)
            .getCatalogManager()
            .getTable(ObjectIdentifier.of("default_catalog", "default_database", query.sinkTable()))
            .orElseThrow()
            .getResolvedSchema();
    Schema schema = FlinkSchemaUtil.convert(columns);
    PartitionSpec buckets = PartitionSpec.builderFor(schema).bucket(query.bucketColumn(), 4).build();
    return catalog.createTable(id, schema, buckets, WRITE_PROPERTIES);
  }

  /** Connector options naming the table in the embedded catalog, as both connectors take them. */
  private String sinkOptions(NexmarkEngine engine, String tableName, boolean upserts) {
    Map<String, String> options = new java.util.LinkedHashMap<>();
    options.put("connector", engine.connector());
    options.put("catalog-name", Catalogs.EMBEDDED_NAME);
    options.put("catalog-impl", JdbcCatalog.class.getName());
    options.put("uri", "jdbc:sqlite:" + warehouse.toAbsolutePath().resolve("catalog.db"));
    options.put("warehouse", warehouse.toAbsolutePath().toString());
    options.put("catalog-database", NAMESPACE);
    options.put("catalog-table", tableName);
    if (upserts) {
      options.put("upsert-enabled", "true");
    }
    return options.entrySet().stream()
        .map(e -> "'" + e.getKey() + "' = '" + e.getValue() + "'")
        .collect(Collectors.joining(", "));
  }

  private static Path writeSideInput(Path file) {
    List<String> lines = IntStream.range(0, SIDE_INPUT_KEYS).mapToObj(k -> k + ",side-" + k).toList();
    try {
      Files.createDirectories(file.getParent());
      return Files.write(file, lines);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A started MiniCluster of one TaskManager with {@value #PARALLELISM} slots, no restarts, any REST port. */
  public static MiniCluster startMiniCluster() throws Exception {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    conf.set(TaskManagerOptions.NUM_TASK_SLOTS, PARALLELISM);
    conf.set(RestOptions.BIND_PORT, "0"); // any free port: several suites may run on one machine
    MiniCluster cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(PARALLELISM)
                .build());
    cluster.start();
    return cluster;
  }

  @Override
  public void close() throws Exception {
    TestStreamEnvironment.unsetAsContext();
    try {
      cluster.close();
    } finally {
      IcebergTableRef.close(catalog);
    }
  }
}
