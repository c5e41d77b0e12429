package dev.floe.flink.example;

import dev.floe.corpus.CorpusSchemas;
import dev.floe.iceberg.Catalogs;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * The example job: a Kafka topic of Nexmark events (what {@code scripts/floe generate nexmark
 * --bootstrap ... --topic ...} produces) into an Iceberg table of floe's embedded catalog, in
 * Flink SQL, through floe on both ends -- {@code 'format' = 'floe-json'} and {@code 'connector' =
 * 'floe-iceberg'} -- everything from the topic's earliest to its latest offsets, exactly once
 * (1 s checkpoints, a local MiniCluster at parallelism 2). Run it with {@code scripts/flink-example}.
 */
public final class NexmarkToIceberg {
  private NexmarkToIceberg() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = options(args);
    String bootstrap = options.getOrDefault("bootstrap", "127.0.0.1:9092");
    String topic = options.getOrDefault("topic", "nexmark");
    Path warehouse = Path.of(options.getOrDefault("warehouse", "floe-warehouse"));
    long started = System.nanoTime();
    run(bootstrap, topic, warehouse);
    System.out.printf(
        "landed topic %s in table nexmark.events of the embedded catalog at %s in %.1f s%n",
        topic, warehouse.toAbsolutePath(), (System.nanoTime() - started) / 1e9);
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
      if (!args[i].startsWith("--") || i + 1 == args.length) {
        throw new IllegalArgumentException("usage: [--bootstrap HOST:PORT] [--topic NAME] [--warehouse DIR]");
      }
      out.put(args[i].substring(2), args[++i]);
    }
    return out;
  }
}
