package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.awaitCommitted;
import static dev.floe.connect.InJvmTasks.ids;
import static dev.floe.connect.InJvmTasks.records;
import static dev.floe.connect.InJvmTasks.withTaskIndex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.connect.InJvmTasks.RecordingContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * Two tasks own the same partition at once (a zombie and its successor, as after a rebalance the
 * zombie missed): the successor's background commit lands, the zombie's is fenced. The zombie must
 * drop its cycle -- the one committing and the one it is filling -- ask Connect to read again from
 * the tables, skip what they hold, and in the end every record is in the table exactly once.
 */
class TaskFencingTest extends InJvmTaskTest {
  private static final TopicPartition P0 = new TopicPartition("events", 0);
  private static final TopicPartition P1 = new TopicPartition("events", 1);

  @Test
  void aFencedBackgroundCommitDropsBothCyclesAndTheTaskResumesFromTheTable() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "fenced");
    Map<String, String> config = InJvmTasks.config("fencing", warehouse(), id, 10);

    RecordingContext successorContext = new RecordingContext();
    RecordingContext zombieContext = new RecordingContext();
    FloeIcebergSinkTask successor = new FloeIcebergSinkTask();
    FloeIcebergSinkTask zombie = new FloeIcebergSinkTask();
    successor.initialize(successorContext);
    zombie.initialize(zombieContext);
    successor.start(withTaskIndex(config, 0));
    zombie.start(withTaskIndex(config, 1)); // (its metrics need a name of their own)
    try {
      successor.open(List.of(TP));
      zombie.open(List.of(TP)); // both found nothing in the table

      successor.put(records(0, 10)); // a full cycle: committed in the background
      awaitCommitted(successor, 10);

      zombie.put(records(0, 10)); // its full cycle is sealed and fenced in the background ...
      zombie.put(records(10, 13)); // ... while it fills the next
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (zombieContext.rewinds.isEmpty() && System.nanoTime() < deadline) {
        zombie.preCommit(Map.of());
        zombie.put(List.of()); // Connect's next poll found nothing new
        Thread.sleep(20);
      }
      assertEquals(List.of(Map.of(TP, 0L)), zombieContext.rewinds,
          "the zombie reads the partition again from its dropped cycles' first record");
      assertEquals(Map.of(), zombie.preCommit(Map.of()), "the zombie reports nothing it did not commit");
      assertEquals(ids(0, 10), ids(catalog.loadTable(id)), "only the successor's cycle is in the table");

      // Connect reads again from offset 0: the zombie skips what the table holds and commits the rest.
      zombie.put(records(0, 15));
      zombie.close(List.of(TP)); // revoked: commits and waits
      assertEquals(ids(0, 15), ids(catalog.loadTable(id)), "every record once");
      assertTrue(successorContext.rewinds.isEmpty(), "the successor was never fenced");
    } finally {
      zombie.stop();
      successor.stop();
    }
  }

  /**
   * A cooperative rebalance revokes one of the zombie's two partitions, and closing it finds the
   * fence. Connect seeks the kept partition only at its next poll; the poll that ran the rebalance
   * still hands over records of the kept partition fetched before, from where it was. They are
   * dropped and read again after the seek: kept, they would land twice (before, ids 1005-1007 did).
   */
  @Test
  void recordsConnectHandsOverBeforeTheRewindAppliesAreReadAgainNotKept() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "cooperative");
    Map<String, String> config = InJvmTasks.config("cooperative", warehouse(), id, 1_000_000);
    RecordingContext zombieContext = new RecordingContext();
    FloeIcebergSinkTask successor = InJvmTasks.started(withTaskIndex(config, 0), new RecordingContext());
    FloeIcebergSinkTask zombie = InJvmTasks.started(withTaskIndex(config, 1), zombieContext);
    try {
      successor.open(List.of(P0));
      zombie.open(List.of(P0, P1));
      List<SinkRecord> both = new ArrayList<>(recordsOf(P0, 0, 5));
      both.addAll(recordsOf(P1, 0, 5));
      zombie.put(both);
      successor.put(recordsOf(P0, 0, 5));
      successor.close(List.of(P0)); // P0 up to 5 lands
      zombie.close(List.of(P0)); // only P0 is revoked: its commit is fenced, the cycle of both dropped

      zombie.put(recordsOf(P1, 5, 8)); // fetched before the rebalance, from where P1 was
      assertEquals(List.of(Map.of(P1, 0L)), zombieContext.rewinds, "P1 is read again from the dropped cycle's start");
      zombie.put(recordsOf(P1, 0, 8)); // after the seek
      zombie.close(List.of(P1));

      Map<Long, Integer> expected = new TreeMap<>(ids(0, 5));
      expected.putAll(ids(1000, 1008));
      assertEquals(expected, ids(catalog.loadTable(id)), "every record once");
    } finally {
      zombie.stop();
      successor.stop();
    }
  }

  /** Records {@code from..to-1} of {@code tp}, ids {@code partition * 1000 + offset}. */
  private static List<SinkRecord> recordsOf(TopicPartition tp, long from, long to) {
    List<SinkRecord> out = new ArrayList<>();
    for (long offset = from; offset < to; offset++) {
      byte[] value = ("{\"id\":" + (tp.partition() * 1000L + offset) + ",\"name\":\"x\"}").getBytes(StandardCharsets.UTF_8);
      out.add(new SinkRecord(tp.topic(), tp.partition(), null, null, null, value, offset));
    }
    return out;
  }
}
