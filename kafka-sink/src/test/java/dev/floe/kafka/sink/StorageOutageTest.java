package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.BUCKETS;
import static dev.floe.kafka.sink.SinkFixture.NEXMARK;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.corpus.NexmarkEvent;
import dev.floe.iceberg.Catalogs;
import dev.floe.iceberg.s3.LoopbackS3Server;
import dev.floe.testing.TableFingerprint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink on object storage (an S3-compatible server on loopback, Iceberg's S3FileIO, a JDBC
 * catalog whose warehouse is in the store) while the store answers every request 503 for a while,
 * after the first cycle landed. Before, the sink stopped at the outage's first failed upload or
 * commit with the AWS SDK's bare exception (helper-68: a 3-second outage was enough); now the
 * cycles that fail are dropped and read again from the tables until the store is back, and an
 * outage that outlasts {@code storage.retry.timeout} (here one refusing writes only) stops the
 * sink saying so. The table equals the topic.
 */
class StorageOutageTest extends BrokerAndCatalog {
  private static final String BUCKET = "floe-warehouse";
  private static final int EVENTS = 4_000;

  @TempDir Path s3Dir;
  private LoopbackS3Server s3;
  private Catalog onS3;

  StorageOutageTest() {
    super("unused");
  }

  @BeforeEach
  void startStore() throws Exception {
    s3 = LoopbackS3Server.start(s3Dir.resolve("store"), BUCKET);
    Map<String, String> props = new HashMap<>(s3.jdbcCatalogProperties(s3Dir.resolve("catalog.db")));
    // The SDK's own retries kept short: the outage is the sink's to ride out, not the client's.
    props.put("s3.retry.num-retries", "1");
    props.put("s3.retry.min-wait-ms", "100");
    props.put("s3.retry.max-wait-ms", "200");
    onS3 = Catalogs.load("on-s3", props);
    ((SupportsNamespaces) onS3).createNamespace(Namespace.of("s3"));
  }

  @AfterEach
  void stopStore() throws Exception {
    if (onS3 instanceof AutoCloseable c) {
      c.close();
    }
    s3.close();
  }

  @Test
  void anOutageOfTheStoreIsRiddenOut() throws Exception {
    List<NexmarkEvent> events = topic("ridden-out");
    TableIdentifier id = TableIdentifier.of("s3", "ridden_out");
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config("ridden-out", id, Duration.ofMinutes(2)))) {
      Future<?> run = runPastFirstCommit(sink, id, thread);
      s3.setDown(true);
      Thread.sleep(3_000);
      s3.setDown(false);
      run.get(120, TimeUnit.SECONDS);
      assertTrue(s3.refusedRequests() > 0, "the outage refused requests");
      assertTrue(sink.metrics().getOutageRetries() >= 1, "a cycle was read again after the outage");
    } finally {
      thread.shutdownNow();
    }
    assertExact(id, events);
  }

  @Test
  void anOutagePastTheTimeoutStopsTheSinkAndARestartCompletesTheTable() throws Exception {
    List<NexmarkEvent> events = topic("timed-out");
    TableIdentifier id = TableIdentifier.of("s3", "timed_out");
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config("timed-out", id, Duration.ofSeconds(3)))) {
      Future<?> run = runPastFirstCommit(sink, id, thread);
      s3.setWritesDown(true); // reads go through: nothing waits in Iceberg's own retries of them
      Exception stopped = assertThrows(Exception.class, () -> run.get(120, TimeUnit.SECONDS));
      assertTrue(stopped.getCause() instanceof SinkException
              && stopped.getCause().getMessage().startsWith("the tables' storage or catalog kept failing for")
              && stopped.getCause().getMessage().contains("storage.retry.timeout is PT3S"),
          String.valueOf(stopped.getCause()));
    } finally {
      s3.setWritesDown(false);
      thread.shutdownNow();
    }
    try (KafkaIcebergSink again = new KafkaIcebergSink(config("timed-out", id, Duration.ofSeconds(3)))) {
      again.run();
    }
    assertExact(id, events);
  }

  /** {@value #EVENTS} Nexmark events in a new 4-partition topic. */
  private static List<NexmarkEvent> topic(String name) {
    List<NexmarkEvent> events = SinkFixture.events(3, EVENTS);
    kafka.createTopic(name, 4);
    SinkFixture.produce(kafka.bootstrapServers(), name, 4, SinkFixture.json(events));
    return events;
  }

  /** Cycles of 500 records, to the end of the topic, into a new 4-bucket Nexmark table. */
  private SinkConfig config(String topic, TableIdentifier table, Duration retryTimeout) {
    if (!onS3.tableExists(table)) {
      onS3.createTable(table, NEXMARK, BUCKETS, V2);
    }
    return SinkConfig.builder(onS3, kafka.bootstrapServers(), topic)
        .route(topic, table)
        .commitEvery(Duration.ofMinutes(1), 500, Long.MAX_VALUE)
        .stopAtEnd(true)
        .storageRetryTimeout(retryTimeout)
        .build();
  }

  /** Runs {@code sink} on {@code thread} until its first commit lands. */
  private Future<?> runPastFirstCommit(KafkaIcebergSink sink, TableIdentifier id, ExecutorService thread)
      throws Exception {
    Future<?> run = thread.submit(sink::run);
    awaitFirstCommit(id, run);
    return run;
  }

  private void awaitFirstCommit(TableIdentifier id, Future<?> run) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (onS3.loadTable(id).currentSnapshot() == null) {
      if (run.isDone()) {
        run.get(); // its failure
      }
      assertTrue(System.nanoTime() < deadline, "no commit within 60 s");
      Thread.sleep(20);
    }
  }

  private void assertExact(TableIdentifier id, List<NexmarkEvent> events) {
    Table table = onS3.loadTable(id);
    assertEquals(SinkFixture.expected(events), TableFingerprint.of(table), "every event once");
    Map<TopicPartition, Long> stored = SinkFixture.storedOffsets(table, id.name().replace('_', '-'));
    for (int p = 0; p < 4; p++) {
      assertEquals(EVENTS / 4L, stored.get(new TopicPartition(id.name().replace('_', '-'), p)), "partition " + p);
    }
  }
}
