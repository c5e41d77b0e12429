package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A topic deleted and created again while the sink holds its partition and waits on a commit:
 * the consumer sees no rebalance and goes on reading the new topic from the old topic's
 * positions. Before, those positions were committed under the old topic's id: the new topic's
 * first records were never written, and a restart wrote the ones after them twice (found in
 * review). Now the commit finds the id changed and the sink stops without committing; started
 * again, it reads the new topic from its beginning, and each of its records is in the table once.
 * The old topic's records that were read but not committed when it was deleted are gone with it.
 */
class TopicRecreatedWhileRunningTest extends BrokerAndCatalog {
  private static final String TOPIC = "recreated";
  private static final TableIdentifier TABLE = TableIdentifier.of("t", TOPIC);

  private final HeldCommit held = new HeldCommit();
  /** What the first run ended with. */
  private String stoppedWith;

  TopicRecreatedWhileRunningTest() {
    super("t");
  }

  @Test
  void theSinkStopsInsteadOfStoringTheOldTopicsPositionsAndAStartReadsTheNewTopicWhole() throws Exception {
    kafka.createTopic(TOPIC, 1);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(sink(held.wrap(catalog)).stopAtEnd(false).build())) {
      Future<?> run = thread.submit(sink::run);
      produce(0, 1000);
      awaitStored(1000, run);

      held.arm();
      produce(1000, 500); // the old topic's offsets 1000-1499: their commit is held
      assertTrue(held.awaitHeld(30), "the commit of 1000-1499 was held");
      Thread.sleep(2000); // the consumer reaches its next cycle's end and waits for the held commit
      kafka.deleteTopic(TOPIC);
      kafka.createTopic(TOPIC, 1);
      produce(2000, 2500); // the new topic's offsets 0-2499, longer than the old one
      held.release();

      try {
        run.get(30, TimeUnit.SECONDS);
        stoppedWith = "nothing: it returned";
      } catch (ExecutionException e) {
        stoppedWith = causes(e);
      } catch (java.util.concurrent.TimeoutException e) {
        stoppedWith = "nothing: it was still running after 30 s";
        sink.stop(); // to see what the table holds after a restart
        run.get(60, TimeUnit.SECONDS);
      }
    } finally {
      thread.shutdownNow();
    }
    try (KafkaIcebergSink sink = new KafkaIcebergSink(sink(catalog).stopAtEnd(true).build())) {
      sink.run();
    }
    Map<Long, Integer> actual = SinkFixture.rowsPerId(catalog.loadTable(TABLE));
    List<String> differences = new ArrayList<>();
    for (long id = 0; id < 4500; id++) {
      int rows = actual.getOrDefault(id, 0);
      boolean right = id < 1000 || id >= 2000
          ? rows == 1 // committed before the hold; the new topic, read from its beginning
          : rows <= 1; // the old topic's cycles read before it was deleted: those not committed are gone with it
      if (!right) {
        differences.add(id + ": " + rows);
      }
    }
    assertEquals(List.of(), differences.subList(0, Math.min(10, differences.size())),
        differences.size() + " ids differ (id: rows), stored " + SinkFixture.storedOffsets(catalog.loadTable(TABLE), TOPIC));
    assertTrue(actual.keySet().stream().allMatch(id -> id < 4500), "no other ids");
    assertTrue(actual.containsKey(1000L), "the held commit landed");
    assertTrue(stoppedWith.contains("was deleted and created again"), "the sink stopped with " + stoppedWith);
  }

  /**
   * A topic deleted while the sink reads others (under a pattern, say) does not keep the others'
   * ids from being read: before, one missing topic failed the whole lookup, and a sink given
   * partitions in that moment stopped (found in review).
   */
  @Test
  void theIdsOfTopicsThatExistAreReadThoughAnotherIsGone() {
    kafka.createTopic("ids-kept", 1);
    try (TopicIds ids = new TopicIds(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      Map<String, String> found = ids.current(List.of("ids-kept", "ids-never-created"));
      assertEquals(Set.of("ids-kept"), found.keySet());
      assertTrue(found.get("ids-kept").length() > 10, "an id: " + found);
    }
  }

  /**
   * A topic the sink reads under a pattern is deleted: its partitions are revoked, and the
   * revocation's commit of group offsets for them (a hint; the tables hold the offsets) no longer
   * holds the sink for Kafka's 60 s API timeout. The other topic's records go on landing. Before,
   * they waited a minute (found in review).
   */
  @Test
  void aDeletedTopicDoesNotHoldTheOthersRecordsForAMinute() throws Exception {
    kafka.createTopic("pattern-kept", 2);
    kafka.createTopic("pattern-deleted", 2);
    TableIdentifier table = TableIdentifier.of("t", "pattern");
    SinkConfig config = SinkConfig.builder(catalog, kafka.bootstrapServers(), "pattern")
        .createTables(KEYED, PartitionSpec.unpartitioned(), V2)
        .topicPattern(java.util.regex.Pattern.compile("pattern-.*"))
        .routeField("kind")
        .routeValue("k", table)
        .stopAtEnd(false)
        .commitEvery(Duration.ofMillis(300), 500, Long.MAX_VALUE)
        .consumerProperty("metadata.max.age.ms", 1000) // notices the deleted topic soon
        .build();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      Future<?> run = thread.submit(sink::run);
      produceTo("pattern-kept", 0, 200);
      produceTo("pattern-deleted", 200, 200);
      awaitRows(table, 400, 60, run);
      kafka.deleteTopic("pattern-deleted");
      Thread.sleep(3000); // the consumer finds the topic gone and gives its partitions up
      produceTo("pattern-kept", 400, 200);
      awaitRows(table, 600, 30, run); // before: a 60 s stall in the revocation's commitSync
      sink.stop();
      run.get(60, TimeUnit.SECONDS);
    } finally {
      thread.shutdownNow();
    }
  }

  private static void produceTo(String topic, long firstId, int count) {
    List<byte[]> messages = new ArrayList<>();
    List<Integer> partitions = new ArrayList<>();
    for (long id = firstId; id < firstId + count; id++) {
      messages.add(keyed(id, id, "k"));
      partitions.add((int) (id % 2));
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), topic, partitions, messages);
  }

  private void awaitRows(TableIdentifier table, long rows, int seconds, Future<?> run) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      var snapshot = catalog.tableExists(table) ? catalog.loadTable(table).currentSnapshot() : null;
      long total = snapshot == null ? 0 : Long.parseLong(snapshot.summary().getOrDefault("total-records", "0"));
      if (total >= rows) {
        return;
      }
      if (run.isDone()) {
        run.get();
      }
      assertTrue(System.nanoTime() < deadline, table + " holds " + total + " rows after " + seconds + " s, expected " + rows);
      Thread.sleep(100);
    }
  }

  private SinkConfig.Builder sink(Catalog through) {
    return SinkConfig.builder(through, kafka.bootstrapServers(), TOPIC)
        .createTables(KEYED, PartitionSpec.unpartitioned(), V2)
        .route(TOPIC, TABLE)
        .commitEvery(Duration.ofMillis(500), 200, Long.MAX_VALUE);
  }

  private static void produce(long firstId, int count) {
    List<byte[]> messages = new ArrayList<>();
    for (long id = firstId; id < firstId + count; id++) {
      messages.add(keyed(id, id, "k"));
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), TOPIC, Collections.nCopies(count, 0), messages);
  }

  private void awaitStored(long next, Future<?> run) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (SinkFixture.storedOffsets(catalog.loadTable(TABLE), TOPIC).getOrDefault(new TopicPartition(TOPIC, 0), 0L) < next) {
      if (run.isDone()) {
        run.get();
      }
      assertTrue(System.nanoTime() < deadline, "offset " + next + " stored within 60 s");
      Thread.sleep(100);
    }
  }

  private static String causes(Throwable t) {
    StringBuilder out = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      out.append(c.getMessage()).append(" <- ");
    }
    return out.toString();
  }
}
