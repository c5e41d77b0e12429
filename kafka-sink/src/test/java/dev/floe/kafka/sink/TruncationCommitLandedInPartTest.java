package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongPredicate;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Route-field mode: a log truncated while the sink was down, found at resume; the commit that moves
 * the tables' offsets back to the new log lands for one table and fails for the other. The next
 * run must read the failed table's new records again, though the table that landed stores a lower
 * offset than the failed table's old one. Before, the sink resumed from that lower offset, which
 * the broker accepted, and the failed table's new records below it were never read.
 */
class TruncationCommitLandedInPartTest extends BrokerAndCatalog {
  private static final String TOPIC = "landed-in-part";
  private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
  private static final TableIdentifier EVEN = TableIdentifier.of("t", "part_even");
  private static final TableIdentifier ODD = TableIdentifier.of("t", "part_odd");

  TruncationCommitLandedInPartTest() {
    super("t");
  }

  @Test
  void theTableWhoseCommitFailedReadsItsNewRecordsAgain() throws Exception {
    kafka.createTopic(TOPIC, 1);
    produce(0, 1_000); // offsets 0-999
    runOnce(catalog);
    assertEquals(1_000, stored(EVEN).next());
    assertEquals(1_000, stored(ODD).next());

    kafka.stop();
    deleteLogSegments(TOPIC);
    kafka.restart();
    produce(2_000, 600); // the new log's offsets 0-599, in a later leader epoch

    Catalog oddRefused = new WrappingCatalog(catalog, (id, ops) -> id.equals(ODD) ? new RefusesCommits(ops) : ops);
    assertThrows(SinkException.class, () -> runOnce(oddRefused));
    assertEquals(600, stored(EVEN).next(), "the even table's commit landed, in the new log's epoch");
    assertEquals(1_000, stored(ODD).next(), "the odd table still holds the old log's offset and epoch");

    runOnce(catalog);
    assertEquals("", difference(expected(id -> id % 2 == 0), SinkFixture.rowsPerId(catalog.loadTable(EVEN))),
        "even: each record once");
    assertEquals("", difference(expected(id -> id % 2 == 1), SinkFixture.rowsPerId(catalog.loadTable(ODD))),
        "odd: each record once, the new log's too");
    assertEquals(600, stored(ODD).next(), "the odd table now holds the new log's offset");
  }

  /** The ids missing from {@code actual} and those in it other than once; empty if none. */
  private static String difference(Map<Long, Integer> expected, Map<Long, Integer> actual) {
    List<Long> missing = expected.keySet().stream().filter(id -> !actual.containsKey(id)).toList();
    List<Long> wrong = actual.keySet().stream().filter(id -> !expected.containsKey(id) || actual.get(id) != 1).toList();
    return missing.isEmpty() && wrong.isEmpty() ? "" : missing.size() + " missing " + missing.stream().limit(5).toList()
        + ", " + wrong.size() + " unexpected or not once " + wrong.stream().limit(5).toList();
  }

  /** Each id of the old log (0-999) and the new one (2000-2599) that {@code in} takes, once. */
  private static Map<Long, Integer> expected(LongPredicate in) {
    Map<Long, Integer> out = new TreeMap<>();
    for (long id = 0; id < 2_600; id++) {
      if ((id < 1_000 || id >= 2_000) && in.test(id)) {
        out.put(id, 1);
      }
    }
    return out;
  }

  /** Runs the sink to the end of the topic through {@code through}. */
  private void runOnce(Catalog through) {
    Map<String, String> noIcebergRetries = new HashMap<>(V2);
    noIcebergRetries.put(TableProperties.COMMIT_NUM_RETRIES, "0");
    try (KafkaIcebergSink sink = new KafkaIcebergSink(SinkConfig.builder(through, kafka.bootstrapServers(), TOPIC)
        .createTables(KEYED, PartitionSpec.unpartitioned(), noIcebergRetries)
        .topics(List.of(TOPIC))
        .routeField("kind")
        .routeValue("even", EVEN)
        .routeValue("odd", ODD)
        .commitEvery(Duration.ofSeconds(60), 100_000, Long.MAX_VALUE)
        .stopAtEnd(true)
        .build())) {
      sink.run();
    }
  }

  private SnapshotOffsets.Position stored(TableIdentifier table) {
    return SnapshotOffsets.latest(((HasTableOperations) catalog.loadTable(table)).operations().current(), TOPIC,
        List.of(TP)).get(TP);
  }

  /** {@code count} records with ids from {@code firstId}, routed to the even or the odd table by id. */
  private static void produce(long firstId, int count) {
    List<byte[]> messages = new ArrayList<>();
    for (long id = firstId; id < firstId + count; id++) {
      messages.add(keyed(id, id, id % 2 == 0 ? "even" : "odd"));
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), TOPIC, Collections.nCopies(count, 0), messages);
  }
}
