package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Route-field mode, a log truncated while the sink was down, and a table ("quiet") that takes none
 * of the records written after it. The sink finds the truncation at resume through the leader epoch
 * stored with the quiet table's offset. Before (found in review), the quiet table was never
 * committed again (its offset moved forward without files), so every later resume found the same
 * divergence and dropped every table's floor to it, and the tables that had taken the new records
 * wrote them again: 300 of one table's rows twice after a plain restart.
 */
class QuietTableAfterTruncationTest extends BrokerAndCatalog {
  private static final String TOPIC = "quiet-after-truncation";
  private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
  private static final TableIdentifier EVEN = TableIdentifier.of("t", "quiet_even");
  private static final TableIdentifier ODD = TableIdentifier.of("t", "quiet_odd");
  private static final TableIdentifier QUIET = TableIdentifier.of("t", "quiet_quiet");

  QuietTableAfterTruncationTest() {
    super("t");
  }

  @Test
  void aQuietTablesOldEpochIsReplacedAndLaterResumesWriteNothingTwice() throws Exception {
    kafka.createTopic(TOPIC, 1);
    produce(0, 400, id -> id % 3 == 0 ? "even" : id % 3 == 1 ? "odd" : "quiet");
    runOnce();
    produce(400, 600, id -> id % 2 == 0 ? "even" : "odd"); // offsets 400-999: the quiet table takes none
    assertEquals(0, runOnce(), "nothing reused yet");
    assertEquals(400, stored(QUIET).next());

    kafka.stop();
    deleteLogSegments(TOPIC);
    kafka.restart();
    produce(2_000, 600, id -> id % 2 == 0 ? "even" : "odd"); // reused offsets 0-599, none for the quiet table
    assertEquals(1, runOnce(), "the truncation is found through the quiet table's epoch");
    SnapshotOffsets.Position quiet = stored(QUIET);
    assertEquals(600, quiet.next(), "the quiet table takes the new log's offset, without files");
    assertEquals(stored(EVEN).leaderEpoch(), quiet.leaderEpoch(), "and its epoch");

    assertEquals(0, runOnce(), "a restart finds nothing reused again");
    assertEquals(expected(id -> id < 400 ? id % 3 == 0 : id % 2 == 0), SinkFixture.rowsPerId(catalog.loadTable(EVEN)),
        "each of the even table's records once, old and new");
    assertEquals(expected(id -> id < 400 ? id % 3 == 1 : id % 2 == 1), SinkFixture.rowsPerId(catalog.loadTable(ODD)));
    assertEquals(expected(id -> id < 400 && id % 3 == 2), SinkFixture.rowsPerId(catalog.loadTable(QUIET)));
  }

  /** Each id of the old topic (0-999) and the new records (2000-2599) that {@code in} takes, once. */
  private static Map<Long, Integer> expected(java.util.function.LongPredicate in) {
    Map<Long, Integer> out = new TreeMap<>();
    for (long id = 0; id < 2_600; id++) {
      if ((id < 1_000 || id >= 2_000) && in.test(id)) {
        out.put(id, 1);
      }
    }
    return out;
  }

  /** Runs the sink to the end of the topic; returns how many reuses of offsets it found. */
  private long runOnce() {
    try (KafkaIcebergSink sink = new KafkaIcebergSink(SinkConfig.builder(catalog, kafka.bootstrapServers(), TOPIC)
        .createTables(KEYED, PartitionSpec.unpartitioned(), V2)
        .topics(List.of(TOPIC))
        .routeField("kind")
        .routeValue("even", EVEN)
        .routeValue("odd", ODD)
        .routeValue("quiet", QUIET)
        .commitEvery(Duration.ofSeconds(60), 100_000, Long.MAX_VALUE)
        // Off, so that the quiet table keeps its old offset as after a crash (a sink that stops
        // stores the offsets reached in its idle tables at its last cycle).
        .idleCommitCycles(0)
        .stopAtEnd(true)
        .build())) {
      sink.run();
      return sink.metrics().getReusedOffsets();
    }
  }

  private SnapshotOffsets.Position stored(TableIdentifier table) {
    return SnapshotOffsets.latest(((HasTableOperations) catalog.loadTable(table)).operations().current(), TOPIC,
        List.of(TP)).get(TP);
  }

  /** {@code count} records with ids from {@code firstId}, each routed to the table {@code kind} names. */
  private static void produce(long firstId, int count, LongFunction<String> kind) {
    List<byte[]> messages = new ArrayList<>();
    for (long id = firstId; id < firstId + count; id++) {
      messages.add(keyed(id, id, kind.apply(id)));
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), TOPIC, Collections.nCopies(count, 0), messages);
  }
}
