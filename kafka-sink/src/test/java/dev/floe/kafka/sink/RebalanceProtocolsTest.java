package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A second sink joins the group while records flow and leaves again, under each way a Kafka 4
 * consumer group can rebalance: the classic protocol with eager revocation (the default
 * assignors), the classic protocol with the cooperative assignor, and the consumer protocol of
 * KIP-848 ({@code group.protocol=consumer}), where the broker assigns partitions and takes them
 * back one by one. Every record lands once, and neither sink fails.
 */
class RebalanceProtocolsTest extends BrokerAndCatalog {
  private static final int PARTITIONS = 4;
  private static final int PER_BURST = 400;

  RebalanceProtocolsTest() {
    super("t");
  }

  @ParameterizedTest
  @ValueSource(strings = {"eager", "cooperative", "consumer"})
  void aSinkJoiningAndLeavingMidStreamLosesAndDuplicatesNothing(String protocol) throws Exception {
    String topic = "rebalance-" + protocol;
    TableIdentifier table = TableIdentifier.of("t", topic.replace('-', '_'));
    kafka.createTopic(topic, PARTITIONS);
    SinkConfig.Builder builder = SinkConfig.builder(catalog, kafka.bootstrapServers(), topic)
        .createTables(KEYED, PartitionSpec.unpartitioned(), V2)
        .route(topic, table)
        .stopAtEnd(false)
        .commitEvery(Duration.ofMillis(300), 500, Long.MAX_VALUE);
    SinkConfig config = rebalancingBy(builder, protocol).build();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    long produced = 0;
    try (KafkaIcebergSink first = new KafkaIcebergSink(config)) {
      Future<?> a = threads.submit(first::run);
      produced = produceWhile(topic, produced, () -> first.metrics().getCommits() < 2, a);
      try (KafkaIcebergSink second = new KafkaIcebergSink(config)) {
        Future<?> b = threads.submit(second::run);
        produced = produceWhile(topic, produced, () -> second.metrics().getCommits() < 3, a, b); // it took partitions
        second.stop();
        b.get(60, TimeUnit.SECONDS);
      }
      long firstBefore = first.metrics().getCommits();
      produced = produceWhile(topic, produced, () -> first.metrics().getCommits() < firstBefore + 3, a); // and gave them back
      awaitRows(table, produced, a);
      first.stop();
      a.get(60, TimeUnit.SECONDS);
    } finally {
      threads.shutdownNow();
    }
    Map<Long, Integer> rows = SinkFixture.rowsPerId(catalog.loadTable(table));
    List<String> wrong = new ArrayList<>();
    for (long id = 0; id < produced; id++) {
      if (rows.getOrDefault(id, 0) != 1) {
        wrong.add(id + ": " + rows.getOrDefault(id, 0));
      }
    }
    assertEquals(List.of(), wrong.subList(0, Math.min(10, wrong.size())), wrong.size() + " ids not in the table once");
    assertEquals(produced, rows.size(), "no other ids");
  }

  /**
   * {@code builder} with the consumers rebalancing by {@code protocol}: {@code eager} (the
   * defaults), {@code cooperative} (the classic protocol, cooperative assignor) or {@code consumer}
   * (KIP-848).
   */
  static SinkConfig.Builder rebalancingBy(SinkConfig.Builder builder, String protocol) {
    switch (protocol) {
      case "cooperative" -> builder.consumerProperty(
          ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
      case "consumer" -> builder.consumerProperty(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
      default -> { }
    }
    return builder;
  }

  /** Produces bursts of records while {@code condition} holds (at most 60 s); returns the next id. */
  private static long produceWhile(String topic, long nextId, BooleanSupplier condition, Future<?>... sinks)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (condition.getAsBoolean()) {
      nextId = produce(topic, nextId);
      Thread.sleep(300);
      for (Future<?> sink : sinks) {
        if (sink.isDone()) {
          sink.get();
        }
      }
      assertTrue(System.nanoTime() < deadline, "the rebalance did not happen within 60 s");
    }
    return nextId;
  }

  private static long produce(String topic, long firstId) {
    List<byte[]> messages = new ArrayList<>();
    List<Integer> partitions = new ArrayList<>();
    for (long id = firstId; id < firstId + PER_BURST; id++) {
      messages.add(keyed(id, id, "k"));
      partitions.add((int) (id % PARTITIONS));
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), topic, partitions, messages);
    return firstId + PER_BURST;
  }

  private void awaitRows(TableIdentifier table, long rows, Future<?> run) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      var snapshot = catalog.loadTable(table).currentSnapshot();
      long total = snapshot == null ? 0 : Long.parseLong(snapshot.summary().getOrDefault("total-records", "0"));
      if (total >= rows) {
        return;
      }
      if (run.isDone()) {
        run.get();
      }
      assertTrue(System.nanoTime() < deadline, table + " holds " + total + " rows, expected " + rows);
      Thread.sleep(100);
    }
  }

}
