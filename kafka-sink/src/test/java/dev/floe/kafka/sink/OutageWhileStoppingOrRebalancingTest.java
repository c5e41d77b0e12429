package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.iceberg.ForwardingTableOperations;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.junit.jupiter.api.Test;

/**
 * An outage of the catalog (every commit fails with an I/O error while it lasts) met by a stop
 * and by a rebalance (helper-70): stopped while waiting it out, the sink returned with Kafka's
 * bare WakeupException; a rebalance whose callback's commit met it stopped the sink with Kafka's
 * "User rebalance callback throws an error". Now the stop returns, the rebalance is ridden out,
 * and the table ends up with every record once.
 */
class OutageWhileStoppingOrRebalancingTest extends BrokerAndCatalog {
  private final AtomicBoolean down = new AtomicBoolean();

  OutageWhileStoppingOrRebalancingTest() {
    super("o");
  }

  /** The embedded catalog, whose commits fail while {@link #down}. */
  private Catalog failingWhileDown() {
    return new WrappingCatalog(catalog, (id, ops) -> new ForwardingTableOperations(ops) {
      @Override
      public void commit(TableMetadata base, TableMetadata metadata) {
        if (down.get()) {
          throw new RuntimeIOException(new IOException("the test's catalog outage"));
        }
        super.commit(base, metadata);
      }
    });
  }

  private SinkConfig.Builder sink(Catalog through, String topic, TableIdentifier table) {
    return SinkConfig.builder(through, kafka.bootstrapServers(), topic)
        .route(topic, table)
        .storageRetryTimeout(Duration.ofMinutes(2));
  }

  @Test
  void aStopWhileWaitingOutAnOutageReturnsAndARestartCompletesTheTable() throws Exception {
    TableIdentifier table = TableIdentifier.of("o", "stopped");
    catalog.createTable(table, KEYED, PartitionSpec.unpartitioned(), V2);
    Map<Long, Long> expected = produce("stopped", 2, 0, 3_000);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(sink(failingWhileDown(), "stopped", table)
        .commitEvery(Duration.ofMinutes(1), 300, Long.MAX_VALUE)
        .consumerProperty("max.poll.records", 50)
        .build())) {
      Future<?> run = thread.submit(sink::run);
      awaitFirstCommit(table, run);
      down.set(true);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (sink.metrics().getOutageRetries() < 2) {
        assertTrue(System.nanoTime() < deadline, "the sink met the outage");
        Thread.sleep(5);
      }
      Thread.sleep(300); // inside its 2 s wait
      sink.stop();
      run.get(30, TimeUnit.SECONDS); // returns, as a stop does
    } finally {
      down.set(false);
      thread.shutdownNow();
    }
    try (KafkaIcebergSink again = new KafkaIcebergSink(sink(catalog, "stopped", table).stopAtEnd(true).build())) {
      again.run();
    }
    assertEquals(expected, new TreeMap<>(SinkFixture.seqById(catalog.loadTable(table))), "every record once");
  }

  @Test
  void aRebalanceDuringAnOutageIsRiddenOut() throws Exception {
    TableIdentifier table = TableIdentifier.of("o", "rebalanced");
    catalog.createTable(table, KEYED, PartitionSpec.unpartitioned(), V2);
    Map<Long, Long> expected = produce("rebalanced", 4, 0, 20_000);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    Catalog failing = failingWhileDown();
    KafkaIcebergSink first = new KafkaIcebergSink(sink(failing, "rebalanced", table)
        .commitEvery(Duration.ofSeconds(6), Long.MAX_VALUE, Long.MAX_VALUE)
        .consumerProperty("max.poll.records", 10)
        .build());
    KafkaIcebergSink second = null;
    try {
      Future<?> firstRun = threads.submit(first::run);
      awaitFirstCommit(table, firstRun);
      down.set(true);
      expected.putAll(produce("rebalanced", 4, 20_000, 20_500));
      Thread.sleep(500);
      second = new KafkaIcebergSink(sink(failing, "rebalanced", table)
          .commitEvery(Duration.ofSeconds(60), 300, Long.MAX_VALUE)
          .consumerProperty("max.poll.records", 10)
          .build());
      Future<?> secondRun = threads.submit(second::run); // joins: the first sink's revocation commit fails
      Thread.sleep(8_000);
      assertFalse(firstRun.isDone(), () -> "the first sink stopped: " + failure(firstRun));
      assertFalse(secondRun.isDone(), () -> "the second sink stopped: " + failure(secondRun));
      assertTrue(first.metrics().getOutageRetries() + second.metrics().getOutageRetries() >= 1, "the outage was met");
      down.set(false);
      first.stop();
      second.stop();
      firstRun.get(60, TimeUnit.SECONDS);
      secondRun.get(60, TimeUnit.SECONDS);
    } finally {
      down.set(false);
      first.stop();
      if (second != null) {
        second.stop();
      }
      threads.shutdown();
      threads.awaitTermination(60, TimeUnit.SECONDS);
      first.close();
      if (second != null) {
        second.close();
      }
    }
    try (KafkaIcebergSink again = new KafkaIcebergSink(sink(catalog, "rebalanced", table).stopAtEnd(true).build())) {
      again.run();
    }
    assertEquals(expected, new TreeMap<>(SinkFixture.seqById(catalog.loadTable(table))), "every record once");
  }

  private static String failure(Future<?> run) {
    try {
      run.get();
      return "no failure";
    } catch (Exception e) {
      return String.valueOf(e.getCause());
    }
  }

  /** Records with ids {@code from} to {@code to} - 1 (seq = id) spread over the partitions; the topic is made first. */
  private static Map<Long, Long> produce(String topic, int partitions, long from, long to) {
    if (from == 0) {
      kafka.createTopic(topic, partitions);
    }
    List<byte[]> messages = new ArrayList<>();
    List<Integer> spread = new ArrayList<>();
    Map<Long, Long> ids = new TreeMap<>();
    for (long id = from; id < to; id++) {
      messages.add(keyed(id, id, "k"));
      spread.add((int) (id % partitions));
      ids.put(id, id);
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), topic, spread, messages);
    return ids;
  }

  private void awaitFirstCommit(TableIdentifier table, Future<?> run) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (catalog.loadTable(table).currentSnapshot() == null) {
      if (run.isDone()) {
        run.get();
      }
      assertTrue(System.nanoTime() < deadline, "no commit within 60 s");
      Thread.sleep(20);
    }
  }
}
