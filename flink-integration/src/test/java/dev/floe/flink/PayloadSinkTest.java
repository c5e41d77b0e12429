package dev.floe.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.corpus.CorpusSchemas;
import dev.floe.corpus.NexmarkEvent;
import dev.floe.corpus.NexmarkGenerator;
import dev.floe.corpus.NexmarkJson;
import dev.floe.flink.sink.FloeIcebergSink;
import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.kafka.RoundRobinProducer;
import dev.floe.testing.Canonical;
import dev.floe.testing.TableFingerprint;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.kafka.source.KafkaSource;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The raw path, Nexmark q0 (every event, as it is): a 4-partition topic on a real broker, a Flink
 * job at parallelism 2 with {@link FloeIcebergSink}, a 4-bucket v2 table in the embedded catalog,
 * read back by Iceberg's generic reader and compared with the input by row count and full-value
 * fingerprint.
 */
class PayloadSinkTest {
  private static final Schema NEXMARK = SchemaParser.fromJson(CorpusSchemas.nexmarkJson());
  private static final PartitionSpec BUCKETS = PartitionSpec.builderFor(NEXMARK).bucket("bid.auction", 4).build();
  private static final int EVENTS = 100_000;

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

  @Test
  void nexmarkEventsLandExactlyOnce() throws Exception {
    Table table = createTable("q0_raw");
    StreamExecutionEnvironment env = environment(0);
    FloeIcebergSink.forKafkaPayloads(tableRef("q0_raw"))
        .append(env.fromSource(source(), WatermarkStrategy.noWatermarks(), "events"));
    String jobId = env.execute("q0 raw").getJobID().toString();

    table.refresh();
    assertEquals(expected(), TableFingerprint.of(table));
    Snapshot last = table.currentSnapshot();
    assertEquals(jobId, last.summary().get("flink.job-id"));
    assertNotNull(last.summary().get("flink.operator-id"));
    assertNotNull(last.summary().get("flink.max-committed-checkpoint-id"));
  }

  @Test
  void aTaskFailureAfterCommitsRestoresToAnExactTable() throws Exception {
    Table table = createTable("q0_failure");
    FailOnceAfterACheckpoint.reset();
    StreamExecutionEnvironment env = environment(1);
    DataStream<KafkaPayload> payloads =
        env.fromSource(source(), WatermarkStrategy.noWatermarks(), "events").map(new FailOnceAfterACheckpoint());
    FloeIcebergSink.forKafkaPayloads(tableRef("q0_failure")).append(payloads);
    env.execute("q0 raw, one failure");

    assertEquals(1, FailOnceAfterACheckpoint.FAILURES.get(), "the job failed once");
    table.refresh();
    List<Snapshot> commits = new ArrayList<>();
    table.snapshots().forEach(commits::add);
    assertTrue(commits.size() >= 2, "checkpoints committed before the failure and after the restore: " + commits.size());
    assertEquals(expected(), TableFingerprint.of(table));
  }

  /**
   * Slows the first attempt so checkpoints complete while it reads, then fails once, a quarter of
   * the way in or later, once two checkpoints completed: the restored job must neither repeat nor lose what came before.
   */
  static final class FailOnceAfterACheckpoint extends RichMapFunction<KafkaPayload, KafkaPayload>
      implements CheckpointListener {
    static final AtomicInteger FAILURES = new AtomicInteger();
    private static final AtomicInteger CHECKPOINTS_DONE = new AtomicInteger();
    private long seen;

    static void reset() {
      FAILURES.set(0);
      CHECKPOINTS_DONE.set(0);
    }

    @Override
    public KafkaPayload map(KafkaPayload payload) throws Exception {
      if (FAILURES.get() == 0) {
        if (++seen % 100 == 0) {
          Thread.sleep(1); // the first attempt reads slowly enough for checkpoints to complete
        }
        // Two completed checkpoints: the committer has had the first one's notification by then.
        if (seen > EVENTS / 4 && CHECKPOINTS_DONE.get() >= 2) {
          FAILURES.incrementAndGet();
          throw new IllegalStateException("injected failure at offset " + payload.offset());
        }
      }
      return payload;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      CHECKPOINTS_DONE.incrementAndGet();
    }
  }

  private static TableFingerprint expected() {
    return TableFingerprint.ofCanonical(events.stream().map(Canonical::nexmark).toList());
  }

  private static KafkaSource<KafkaPayload> source() {
    return KafkaSource.<KafkaPayload>builder()
        .setBootstrapServers(kafka.bootstrapServers())
        .setTopics("events")
        .setStartingOffsets(OffsetsInitializer.earliest())
        .setBounded(OffsetsInitializer.latest())
        .setDeserializer(new KafkaPayloadDeserializer())
        .build();
  }

  private static StreamExecutionEnvironment environment(int restarts) {
    Configuration conf = new Configuration();
    if (restarts == 0) {
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    } else {
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, java.time.Duration.ofMillis(100));
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);
    env.enableCheckpointing(300);
    return env;
  }

  private static Table createTable(String name) {
    return catalog.createTable(
        TableIdentifier.of("nexmark", name), NEXMARK, BUCKETS, Map.of(TableProperties.FORMAT_VERSION, "2"));
  }

  private static IcebergTableRef tableRef(String name) {
    return IcebergTableRef.embedded(warehouse, TableIdentifier.of("nexmark", name));
  }
}
