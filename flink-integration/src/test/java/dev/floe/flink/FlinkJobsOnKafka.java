package dev.floe.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.corpus.CorpusSchemas;
import dev.floe.corpus.NexmarkEvent;
import dev.floe.corpus.NexmarkGenerator;
import dev.floe.corpus.NexmarkJson;
import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.kafka.RoundRobinProducer;
import dev.floe.testing.Canonical;
import dev.floe.testing.TableFingerprint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the Flink job tests run against: one real KRaft broker per test class with {@value #EVENTS}
 * Nexmark events in topic {@code events} (4 partitions), the embedded catalog with namespace
 * {@code nexmark}, and local Flink environments at parallelism 2 (a MiniCluster per job).
 */
abstract class FlinkJobsOnKafka {
  static final Schema NEXMARK = SchemaParser.fromJson(CorpusSchemas.nexmarkJson());
  static final PartitionSpec BUCKETS = PartitionSpec.builderFor(NEXMARK).bucket("bid.auction", 4).build();
  static final int EVENTS = 100_000;

  @TempDir static Path brokerDir;
  @TempDir static Path warehouse;
  static LocalKafkaBroker kafka;
  static Catalog catalog;
  static List<NexmarkEvent> events;

  @BeforeAll
  static void startBrokerWithEvents() {
    catalog = Catalogs.embedded(warehouse);
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("nexmark"));
    kafka = LocalKafkaBroker.start(brokerDir);
    kafka.createTopic("events", 4);
    NexmarkGenerator generator = new NexmarkGenerator(21);
    events = new ArrayList<>(EVENTS);
    for (int i = 0; i < EVENTS; i++) {
      events.add(generator.next());
    }
    RoundRobinProducer.send(kafka.bootstrapServers(), "events", 4, events.stream().map(NexmarkJson::toBytes).toList());
  }

  @AfterAll
  static void stopBrokerAndCatalog() throws Exception {
    kafka.close();
    IcebergTableRef.close(catalog);
  }

  static TableFingerprint expected() {
    return TableFingerprint.ofCanonical(events.stream().map(Canonical::nexmark).toList());
  }

  /** A source of {@code topic} from its earliest offsets; bounded by the latest at start, or not. */
  static <T> KafkaSourceBuilder<T> source(String topic, boolean bounded) {
    KafkaSourceBuilder<T> builder =
        KafkaSource.<T>builder()
            .setBootstrapServers(kafka.bootstrapServers())
            .setTopics(topic)
            .setStartingOffsets(OffsetsInitializer.earliest());
    return bounded ? builder.setBounded(OffsetsInitializer.latest()) : builder;
  }

  /** The events as raw payloads, the source's uid fixed so a savepoint restores it in any job. */
  static DataStream<KafkaPayload> payloads(StreamExecutionEnvironment env, boolean bounded) {
    KafkaSource<KafkaPayload> source =
        FlinkJobsOnKafka.<KafkaPayload>source("events", bounded).setDeserializer(new KafkaPayloadDeserializer()).build();
    return env.fromSource(source, WatermarkStrategy.noWatermarks(), "events").uid("events");
  }

  /** All of {@code topic} as raw payloads, up to its latest offsets at start. */
  static DataStream<KafkaPayload> payloads(StreamExecutionEnvironment env, String topic) {
    KafkaSource<KafkaPayload> source =
        FlinkJobsOnKafka.<KafkaPayload>source(topic, true).setDeserializer(new KafkaPayloadDeserializer()).build();
    return env.fromSource(source, WatermarkStrategy.noWatermarks(), topic);
  }

  /** A local environment at parallelism 2, 300 ms checkpoints, {@code restarts} restarts allowed. */
  static StreamExecutionEnvironment environment(int restarts, Configuration conf) {
    if (restarts == 0) {
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    } else {
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);
    env.enableCheckpointing(300);
    return env;
  }

  static StreamExecutionEnvironment environment(int restarts) {
    return environment(restarts, new Configuration());
  }

  static Table createTable(String name) {
    return catalog.createTable(
        TableIdentifier.of("nexmark", name), NEXMARK, BUCKETS, Map.of(TableProperties.FORMAT_VERSION, "2"));
  }

  static IcebergTableRef tableRef(String name) {
    return IcebergTableRef.embedded(warehouse, TableIdentifier.of("nexmark", name));
  }

  /** Polls the table until it holds at least {@code rows} rows. */
  static void awaitRows(Table table, long rows, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      table.refresh();
      Snapshot current = table.currentSnapshot();
      if (current != null && Long.parseLong(current.summary().getOrDefault("total-records", "0")) >= rows) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the table did not reach " + rows + " rows in " + timeout);
  }

  /** Adds a job's operators to an environment. */
  interface Job {
    void build(StreamExecutionEnvironment env);
  }

  /**
   * Runs {@code before} over the unbounded events, slowly, until {@code table} has rows; stops it
   * with a savepoint (asserting it stopped part-way); runs {@code after} from the savepoint at full
   * speed, state the savepoint has and {@code after} lacks left behind (a switched sink's), until
   * the table holds every event; then, a few checkpoints later, checks the table exactly.
   *
   * @return the id of the resumed job
   */
  static String stopWithSavepointAndResume(Table table, Job before, Job after) throws Exception {
    Throttle.SLOW.set(true);
    StreamExecutionEnvironment first = environment(0);
    before.build(first);
    JobClient job1 = first.executeAsync("before the savepoint");
    awaitRows(table, 1, Duration.ofSeconds(60));
    String savepoint =
        job1.stopWithSavepoint(false, warehouse.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
            .get(60, TimeUnit.SECONDS);
    table.refresh();
    long rowsAtSavepoint = TableFingerprint.of(table).rows();
    assertTrue(rowsAtSavepoint > 0 && rowsAtSavepoint < EVENTS, "stopped part-way: " + rowsAtSavepoint);

    Throttle.SLOW.set(false);
    Configuration resume = new Configuration();
    resume.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    resume.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
    StreamExecutionEnvironment second = environment(0, resume);
    after.build(second);
    JobClient job2 = second.executeAsync("from the savepoint");
    try {
      awaitRows(table, EVENTS, Duration.ofSeconds(120));
      Thread.sleep(1_000); // a few more checkpoints: a row committed twice would show now
      table.refresh();
      assertEquals(expected(), TableFingerprint.of(table));
      return job2.getJobID().toString();
    } finally {
      job2.cancel().get(60, TimeUnit.SECONDS);
    }
  }

  /** {@code in} through a {@link Throttle} (uid {@code throttle}, so savepoints restore it in any job). */
  static <T> DataStream<T> throttled(DataStream<T> in) {
    return in.map(new Throttle<T>()).returns(in.getType()).uid("throttle");
  }

  /** Slows a job down while {@link #SLOW} is set, so it can be stopped part-way. */
  static final class Throttle<T> extends RichMapFunction<T, T> {
    static final AtomicBoolean SLOW = new AtomicBoolean(true);
    private long seen;

    @Override
    public T map(T value) throws Exception {
      if (SLOW.get() && ++seen % 5 == 0) {
        Thread.sleep(1);
      }
      return value;
    }
  }
}
