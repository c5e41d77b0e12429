package dev.floe.flink.example;

import dev.floe.corpus.CorpusSchemas;
import dev.floe.iceberg.Catalogs;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The example job: a Kafka topic of Nexmark events (what {@code scripts/floe generate nexmark
 * --bootstrap ... --topic ...} produces) into an Iceberg table of floe's embedded catalog, in
 * Flink SQL, through floe on both ends -- {@code 'format' = 'floe-json'} and {@code 'connector' =
 * 'floe-iceberg'} -- everything from the topic's earliest to its latest offsets, exactly once
 * (1 s checkpoints, a local MiniCluster at parallelism 2). Run it with {@code scripts/flink-example}.
 */
public final class NexmarkToIceberg {
  private NexmarkToIceberg() {}

  private static final String USAGE = "usage: scripts/flink-example [--bootstrap HOST:PORT] [--topic NAME]"
      + " [--warehouse DIR]  (defaults: 127.0.0.1:9092, nexmark, floe-warehouse)";

  public static void main(String[] args) throws Exception {
    Map<String, String> options;
    try {
      options = options(args);
    } catch (IllegalArgumentException e) {
      System.err.println("flink-example: " + e.getMessage() + "\n" + USAGE);
      System.exit(2);
      return;
    }
    if (options.containsKey("help")) {
      System.out.println(USAGE);
      return;
    }
    String bootstrap = options.getOrDefault("bootstrap", "127.0.0.1:9092");
    String topic = options.getOrDefault("topic", "nexmark");
    Path warehouse = Path.of(options.getOrDefault("warehouse", "floe-warehouse"));
    String missing = topicProblem(bootstrap, topic);
    if (missing != null) {
      System.err.println("flink-example: " + missing);
      System.exit(1);
    }
    long started = System.nanoTime();
    run(bootstrap, topic, warehouse);
    long rows;
    try (AutoCloseable catalog = (AutoCloseable) Catalogs.embedded(warehouse)) {
      org.apache.iceberg.Snapshot current =
          ((org.apache.iceberg.catalog.Catalog) catalog).loadTable(TABLE).currentSnapshot();
      rows = current == null ? 0 : Long.parseLong(current.summary().getOrDefault("total-records", "0"));
    }
    System.out.printf(
        "landed topic %s in table %s of the embedded catalog at %s in %.1f s; the table holds %,d rows"
            + " (each run appends the whole topic again)%n",
        topic, TABLE, warehouse.toAbsolutePath(), (System.nanoTime() - started) / 1e9, rows);
  }

  private static final org.apache.iceberg.catalog.TableIdentifier TABLE =
      org.apache.iceberg.catalog.TableIdentifier.of("nexmark", "events");

  /** Why the job could not read {@code topic} at {@code bootstrap} (it would wait without a word); null if it can. */
  public static String topicProblem(String bootstrap, String topic) throws InterruptedException {
    Map<String, Object> config = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
    try (Admin admin = Admin.create(config)) {
      admin.describeTopics(List.of(topic)).allTopicNames().get(15, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause() instanceof UnknownTopicOrPartitionException
          ? "topic " + topic + " does not exist at " + bootstrap + " (scripts/floe generate nexmark --bootstrap "
              + bootstrap + " --topic " + topic + " makes it)"
          : "cannot read topic " + topic + " at " + bootstrap + ": " + e.getCause();
    } catch (TimeoutException e) {
      return "no answer from Kafka at " + bootstrap + " within 15 s (is a broker running there? scripts/floe kafka"
          + " start prints its address)";
    }
  }

  /** Runs the job to the end of the topic (as it was at the start). */
  public static void run(String bootstrap, String topic, Path warehouse) throws Exception {
    Catalogs.embeddedProperties(warehouse); // creates the warehouse folder
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, new Configuration());
    env.enableCheckpointing(1_000);
    StreamTableEnvironment sql = StreamTableEnvironment.create(env);
    String columns = columns();
    sql.executeSql(
        "CREATE TABLE events (" + columns + ") WITH ("
            + "'connector' = 'kafka', 'topic' = '" + topic + "', "
            + "'properties.bootstrap.servers' = '" + bootstrap + "', "
            + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', "
            + "'format' = 'floe-json')");
    sql.executeSql(
        "CREATE TABLE lake (" + columns + ") WITH ("
            + "'connector' = 'floe-iceberg', 'catalog-name' = 'floe', "
            + "'catalog-impl' = '" + JdbcCatalog.class.getName() + "', "
            + "'uri' = 'jdbc:sqlite:" + warehouse.toAbsolutePath().resolve("catalog.db") + "', "
            + "'warehouse' = '" + warehouse.toAbsolutePath() + "', "
            + "'catalog-database' = 'nexmark', 'catalog-table' = 'events', "
            + "'format-version' = '2', 'write.parquet.compression-codec' = 'zstd')");
    sql.executeSql("INSERT INTO lake SELECT * FROM events").await();
  }

  /** The Nexmark event columns as Flink SQL (the Iceberg schema as Iceberg's Flink module maps it). */
  public static String columns() {
    RowType type = FlinkSchemaUtil.convert(SchemaParser.fromJson(CorpusSchemas.nexmarkJson()));
    return type.getFields().stream()
        .map(f -> "`" + f.getName() + "` " + f.getType().asSerializableString())
        .collect(Collectors.joining(", "));
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> out = new java.util.HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--help") || args[i].equals("-h")) {
        out.put("help", "");
        continue;
      }
      String name = args[i].startsWith("--") ? args[i].substring(2) : null;
      if (name == null || !List.of("bootstrap", "topic", "warehouse").contains(name)) {
        throw new IllegalArgumentException("unknown option '" + args[i] + "'");
      }
      if (i + 1 == args.length) {
        throw new IllegalArgumentException(args[i] + " needs a value");
      }
      out.put(name, args[++i]);
    }
    return out;
  }
}
