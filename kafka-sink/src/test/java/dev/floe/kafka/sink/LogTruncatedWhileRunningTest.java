package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A partition's log loses its records while the sink runs with a route field (here: the broker
 * stops, the partition's segments are deleted, the broker starts again; in production an unclean
 * leader election). The sink finds its position past the log's end and reads the offsets from
 * there as new records. Two ways that lost them before (both found in review):
 *
 * <ul>
 *   <li>a commit in flight landed after that and raised the offset below which route-field mode
 *       skips records back to the old position;
 *   <li>a table that took none of the new records kept its old offset, and after a restart its
 *       records at the reused offsets below it were skipped.
 * </ul>
 */
class LogTruncatedWhileRunningTest extends BrokerAndCatalog {
  private static final String TOPIC = "truncated";
  private static final TableIdentifier TABLE = TableIdentifier.of("t", TOPIC);

  private final HeldCommit held = new HeldCommit();

  LogTruncatedWhileRunningTest() {
    super("t");
  }

  @Test
  void recordsAtReusedOffsetsLandThoughACommitFromBeforeTheTruncationWasInFlight() throws Exception {
    kafka.createTopic(TOPIC, 1);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(sink(held.wrap(catalog)).stopAtEnd(false).build())) {
      Future<?> run = thread.submit(sink::run);
      produce(0, 1000);
      awaitStored(1000, run);

      held.arm();
      produce(1000, 500); // offsets 1000-1499, a cycle of its own: its commit is held
      assertTrue(held.awaitHeld(30), "the commit of 1000-1499 was held");
      kafka.stop();
      deleteLogSegments(TOPIC);
      kafka.restart();
      awaitReusedOffsetsFound(sink, run); // position 1500, past the log's end (0)
      produce(2000, 300); // the reused offsets 0-299
      held.release();
      awaitRouted(sink, 1800, run);
      sink.stop();
      run.get(60, TimeUnit.SECONDS);
    } finally {
      thread.shutdownNow();
    }
    try (KafkaIcebergSink sink = new KafkaIcebergSink(sink(catalog).stopAtEnd(true).build())) {
      sink.run();
    }
    Map<Long, Integer> actual = SinkFixture.rowsPerId(catalog.loadTable(TABLE));
    List<String> differences = new ArrayList<>();
    for (long id = 0; id < 2300; id++) {
      int expected = id < 1500 || id >= 2000 ? 1 : 0;
      if (actual.getOrDefault(id, 0) != expected) {
        differences.add(id + ": " + actual.getOrDefault(id, 0));
      }
    }
    assertEquals(List.of(), differences.subList(0, Math.min(10, differences.size())),
        differences.size() + " ids differ (id: rows), stored " + SinkFixture.storedOffsets(catalog.loadTable(TABLE), TOPIC));
    assertTrue(actual.keySet().stream().allMatch(id -> id < 2300), "no other ids");
  }

  /**
   * Tables k and j; after the truncation only k takes records for a while, then the sink restarts
   * and j's first records at the reused offsets arrive. Before, j still held its old offset (1000)
   * and its records at offsets 500-999 were skipped: now the cycle after the truncation commits
   * j's offset back without files.
   */
  @Test
  void aTableThatTookNoneOfTheNewRecordsStillMovesItsOffsetBack() throws Exception {
    String topic = "truncated-two";
    TableIdentifier k = TableIdentifier.of("t", "truncated_k");
    TableIdentifier j = TableIdentifier.of("t", "truncated_j");
    kafka.createTopic(topic, 1);
    java.util.function.Function<Boolean, SinkConfig> config = stopAtEnd -> sink(catalog, topic)
        .routeValue("k", k)
        .routeValue("j", j)
        .stopAtEnd(stopAtEnd)
        .build();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config.apply(false))) {
      Future<?> run = thread.submit(sink::run);
      produce(topic, 0, 1000, id -> id % 2 == 0 ? "k" : "j"); // offsets 0-999, both tables
      awaitStored(k, topic, 1000, run);
      awaitStored(j, topic, 1000, run);
      kafka.stop();
      deleteLogSegments(topic);
      kafka.restart();
      awaitReusedOffsetsFound(sink, run);
      produce(topic, 2000, 500, id -> "k"); // the reused offsets 0-499: k's only
      awaitStored(k, topic, 500, run);
      sink.stop();
      run.get(60, TimeUnit.SECONDS);
    } finally {
      thread.shutdownNow();
    }
    produce(topic, 3000, 1000, id -> "j"); // offsets 500-1499: j's only
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config.apply(true))) {
      sink.run();
    }
    Map<Long, Integer> inJ = SinkFixture.rowsPerId(catalog.loadTable(j));
    List<Long> notOnce = new ArrayList<>();
    for (long id = 3000; id < 4000; id++) {
      if (inJ.getOrDefault(id, 0) != 1) {
        notOnce.add(id);
      }
    }
    assertEquals(List.of(), notOnce.subList(0, Math.min(10, notOnce.size())), notOnce.size() + " of j's new records not"
        + " in it once; stored " + SinkFixture.storedOffsets(catalog.loadTable(j), topic));
    Map<Long, Integer> inK = SinkFixture.rowsPerId(catalog.loadTable(k));
    for (long id = 2000; id < 2500; id++) {
      assertEquals(1, inK.getOrDefault(id, 0), "k's new record " + id);
    }
  }

  /**
   * The log is truncated while no sink runs, and grows past the offset the table holds before one
   * starts again: the position is inside the log, so only the leader epoch stored with the offset
   * shows the records under it are new. Before, the restarted sink skipped them (here 300).
   */
  @Test
  void aTruncationWhileNoSinkRunsIsFoundByTheStoredLeaderEpoch() throws Exception {
    String topic = "truncated-down";
    TableIdentifier table = TableIdentifier.of("t", "truncated_down");
    kafka.createTopic(topic, 1);
    java.util.function.Supplier<SinkConfig> config =
        () -> sink(catalog, topic).routeValue("k", table).stopAtEnd(true).build();
    produce(topic, 0, 300, id -> "k");
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config.get())) {
      sink.run();
    }
    SnapshotOffsets.Position stored = SnapshotOffsets.latest(
        ((org.apache.iceberg.HasTableOperations) catalog.loadTable(table)).operations().current(), topic,
        List.of(new TopicPartition(topic, 0))).get(new TopicPartition(topic, 0));
    assertTrue(stored != null && stored.next() == 300 && stored.leaderEpoch() != null, "stored with its epoch: " + stored);
    kafka.stop();
    deleteLogSegments(topic);
    kafka.restart();
    produce(topic, 1000, 500, id -> "k"); // offsets 0-499: 0-299 are under what the table holds
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config.get())) {
      sink.run();
      assertEquals(1, sink.metrics().getReusedOffsets());
    }
    assertEachOnce(table, topic, LongStream.concat(LongStream.range(0, 300), LongStream.range(1000, 1500)));
  }

  /**
   * A transaction's records are written under one leader epoch and its commit marker, after a
   * broker restart, under the next: the position past the marker belongs to the newer epoch. A sink
   * that stored the last record's epoch with it found a "truncation" at every restart after (found
   * in review); the epoch is now the consumer's own for the position.
   */
  @Test
  void aCommitMarkerWrittenUnderANewerLeaderIsNoTruncation() throws Exception {
    String topic = "marker-epoch";
    TableIdentifier table = TableIdentifier.of("t", "marker_epoch");
    kafka.createTopic(topic, 1);
    Map<String, Object> producerConfig = Map.of(
        org.apache.kafka.clients.producer.ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        org.apache.kafka.clients.producer.ProducerConfig.TRANSACTIONAL_ID_CONFIG, "marker-epoch",
        org.apache.kafka.clients.producer.ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
        org.apache.kafka.common.serialization.ByteArraySerializer.class,
        org.apache.kafka.clients.producer.ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
        org.apache.kafka.common.serialization.ByteArraySerializer.class);
    try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(producerConfig)) {
      producer.initTransactions();
      producer.beginTransaction();
      for (long id = 0; id < 100; id++) {
        producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, null, keyed(id, id, "k")));
      }
      producer.flush();
      kafka.stop();
      kafka.restart(); // a new leader epoch between the records and their commit marker
      producer.commitTransaction();
    }
    java.util.function.Supplier<SinkConfig> config =
        () -> sink(catalog, topic).routeValue("k", table).stopAtEnd(true).build();
    for (int run = 1; run <= 2; run++) {
      try (KafkaIcebergSink sink = new KafkaIcebergSink(config.get())) {
        sink.run();
        assertEquals(0, sink.metrics().getReusedOffsets(), "run " + run + " found no truncation");
      }
    }
    Map<Long, Integer> rows = SinkFixture.rowsPerId(catalog.loadTable(table));
    assertEquals(100, rows.size());
    assertTrue(rows.values().stream().allMatch(n -> n == 1), "each record once: " + rows);
  }

  /**
   * Route-field mode, a table added (k) and the group's offsets gone: the restarted sink reads the
   * partition from its beginning for k, under the offset the other table (j) holds. The log was
   * truncated and regrew while no sink ran, and only the position a sink resumes from is checked
   * by the broker; here the records under j's offset written in a later leader epoch than the one
   * j stored show they are new. Before, j skipped them (500 records).
   */
  @Test
  void recordsUnderATablesOffsetWrittenInALaterEpochAreNewToIt() throws Exception {
    String topic = "truncated-floor";
    TableIdentifier k = TableIdentifier.of("t", "floor_k");
    TableIdentifier j = TableIdentifier.of("t", "floor_j");
    kafka.createTopic(topic, 1);
    produce(topic, 0, 1000, id -> "j");
    try (KafkaIcebergSink sink = new KafkaIcebergSink(sink(catalog, topic).routeValue("j", j).stopAtEnd(true).build())) {
      sink.run();
    }
    kafka.stop();
    deleteLogSegments(topic);
    kafka.restart();
    produce(topic, 2000, 500, id -> "j"); // offsets 0-499, under j's 1000
    produce(topic, 3000, 100, id -> "k"); // offsets 500-599
    try (var admin = org.apache.kafka.clients.admin.Admin.create(Map.of(
        org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      admin.deleteConsumerGroups(List.of(topic)).all().get(30, TimeUnit.SECONDS); // k starts from the beginning
    }
    try (KafkaIcebergSink sink = new KafkaIcebergSink(
        sink(catalog, topic).routeValue("k", k).routeValue("j", j).stopAtEnd(true).build())) {
      sink.run();
      assertEquals(1, sink.metrics().getReusedOffsets());
    }
    assertEachOnce(j, topic, LongStream.concat(LongStream.range(0, 1000), LongStream.range(2000, 2500)));
    assertEachOnce(k, topic, LongStream.range(3000, 3100));
  }

  /** Each of {@code ids} is in {@code table} exactly once, and nothing else is. */
  private void assertEachOnce(TableIdentifier table, String topic, LongStream ids) throws IOException {
    Map<Long, Integer> rows = SinkFixture.rowsPerId(catalog.loadTable(table));
    long[] expected = ids.toArray();
    List<Long> notOnce = new ArrayList<>();
    for (long id : expected) {
      if (rows.getOrDefault(id, 0) != 1) {
        notOnce.add(id);
      }
    }
    assertEquals(List.of(), notOnce.subList(0, Math.min(10, notOnce.size())), notOnce.size() + " records not in "
        + table + " once; stored " + SinkFixture.storedOffsets(catalog.loadTable(table), topic));
    assertEquals(expected.length, rows.size(), "no other rows in " + table);
  }

  /**
   * A partition that gets no records while another does keeps the epoch stored with its offset:
   * Kafka reports an empty fetch without one, and taking that as "unknown" dropped it at the next
   * commit, which switched the broker's check off for that partition (found in review).
   */
  @Test
  void anIdlePartitionKeepsTheEpochStoredWithItsOffset() throws Exception {
    String topic = "epoch-idle";
    TableIdentifier table = TableIdentifier.of("t", "epoch_idle");
    kafka.createTopic(topic, 2);
    List<byte[]> first = new ArrayList<>();
    for (long id = 0; id < 200; id++) {
      first.add(keyed(id, id, "k"));
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), topic, java.util.stream.IntStream.range(0, 200).map(i -> i % 2)
        .boxed().toList(), first);
    java.util.function.Supplier<SinkConfig> config = () -> sink(catalog, topic).routeValue("k", table).stopAtEnd(true).build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config.get())) {
      sink.run();
    }
    List<byte[]> second = new ArrayList<>();
    for (long id = 1000; id < 1300; id++) {
      second.add(keyed(id, id, "k"));
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), topic, Collections.nCopies(300, 0), second); // partition 1 idle
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config.get())) {
      sink.run();
    }
    TopicPartition idle = new TopicPartition(topic, 1);
    SnapshotOffsets.Position stored = SnapshotOffsets.latest(
        ((org.apache.iceberg.HasTableOperations) catalog.loadTable(table)).operations().current(), topic,
        List.of(idle)).get(idle);
    assertTrue(stored != null && stored.next() == 100 && stored.leaderEpoch() != null, "the idle partition: " + stored);
  }

  private SinkConfig.Builder sink(Catalog through) {
    return sink(through, TOPIC).routeValue("k", TABLE);
  }

  private static SinkConfig.Builder sink(Catalog through, String topic) {
    return SinkConfig.builder(through, kafka.bootstrapServers(), topic)
        .createTables(KEYED, PartitionSpec.unpartitioned(), V2)
        .topics(List.of(topic))
        .routeField("kind")
        // cycles of 500 records: the consumer goes on polling while the 1000-1499 one is held
        .commitEvery(Duration.ofSeconds(60), 500, Long.MAX_VALUE)
        // the broker's restart rejoins the group; eagerly, the revocation would wait for the commit
        .consumerProperty(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
  }

  private static void produce(long firstId, int count) {
    produce(TOPIC, firstId, count, id -> "k");
  }

  private static void produce(String topic, long firstId, int count, java.util.function.LongFunction<String> kind) {
    List<byte[]> messages = new ArrayList<>();
    for (long id = firstId; id < firstId + count; id++) {
      messages.add(keyed(id, id, kind.apply(id)));
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), topic, Collections.nCopies(count, 0), messages);
  }

  private void awaitStored(long next, Future<?> run) throws Exception {
    awaitStored(TABLE, TOPIC, next, run);
  }

  /** Until {@code table} stores exactly {@code next} for the topic's partition 0. */
  private void awaitStored(TableIdentifier table, String topic, long next, Future<?> run) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (SinkFixture.storedOffsets(catalog.loadTable(table), topic).getOrDefault(new TopicPartition(topic, 0), 0L) != next) {
      if (run.isDone()) {
        run.get();
      }
      assertTrue(System.nanoTime() < deadline, "offset " + next + " stored within 60 s");
      Thread.sleep(100);
    }
  }

  private static void awaitReusedOffsetsFound(KafkaIcebergSink sink, Future<?> run) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (sink.metrics().getReusedOffsets() == 0) {
      if (run.isDone()) {
        run.get();
      }
      assertTrue(System.nanoTime() < deadline, "the reused offsets found within 60 s");
      Thread.sleep(100);
    }
  }

  private static void awaitRouted(KafkaIcebergSink sink, long records, Future<?> run) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (sink.metrics().getRecordsConsumed() < records) {
      if (run.isDone()) {
        run.get();
      }
      assertTrue(System.nanoTime() < deadline, records + " records read within 60 s");
      Thread.sleep(100);
    }
  }

}
