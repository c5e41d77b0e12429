package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.awaitCommitted;
import static dev.floe.connect.InJvmTasks.ids;
import static dev.floe.connect.InJvmTasks.records;
import static dev.floe.connect.InJvmTasks.withTaskIndex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.connect.InJvmTasks.RecordingContext;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * Two tasks own the same partition at once (a zombie and its successor, as after a rebalance the
 * zombie missed): the successor's background commit lands, the zombie's is fenced. The zombie must
 * drop its cycle -- the one committing and the one it is filling -- ask Connect to read again from
 * the tables, skip what they hold, and in the end every record is in the table exactly once.
 */
class TaskFencingTest extends InJvmTaskTest {
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
}
