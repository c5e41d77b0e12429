package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.ids;
import static dev.floe.connect.InJvmTasks.routed;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.ObjectName;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * A task writing many tables in turn (dynamic routing, a route field) gives back an idle table's
 * two threads and its message batches, and takes them again at the table's next record. Before,
 * every table ever written kept them until the task stopped.
 */
class TaskIdleTablesTest extends InJvmTaskTest {
  @Test
  void aTableIdleForACycleEndsItsThreadsAndTakesThemAgainAtItsNextRecord() throws Exception {
    TableIdentifier first = InJvmTasks.createTable(catalog, "first");
    TableIdentifier second = InJvmTasks.createTable(catalog, "second");
    Map<String, String> config = InJvmTasks.routedConfig("idle", warehouse(), 5, first, second);
    config.put("floe.table.idle.ms", "0");

    FloeIcebergSinkTask task = InJvmTasks.started(config, new InJvmTasks.RecordingContext());
    try {
      task.open(List.of(TP));
      task.put(routed(0, 5, offset -> "first"));
      InJvmTasks.awaitCommitted(task, 5);
      assertEquals(2, threadsOf("db.first"), "the first table's threads run while it is written");

      // A cycle of the second table only: at its commit the first has been idle for a cycle
      task.put(routed(5, 10, offset -> "second"));
      InJvmTasks.awaitCommitted(task, 10);
      awaitNoThreadsOf("db.first");
      assertEquals(2, threadsOf("db.second"), "the table of the cycle just sealed keeps its threads");

      task.put(routed(10, 15, offset -> "first"));
      InJvmTasks.awaitCommitted(task, 15);
      assertEquals(2, threadsOf("db.first"), "its next record took the threads again");
    } finally {
      task.stop();
    }
    assertEquals(0, threadsOf("db.first") + threadsOf("db.second"), "stop ends every table's threads");

    Map<Long, Integer> expectedFirst = new TreeMap<>(ids(0, 5));
    expectedFirst.putAll(ids(10, 15));
    assertEquals(expectedFirst, ids(catalog.loadTable(first)));
    assertEquals(ids(5, 10), ids(catalog.loadTable(second)));
  }

  @Test
  void withIdleSetToNeverATableKeepsItsThreadsAcrossCyclesWithoutRecords() throws Exception {
    TableIdentifier first = InJvmTasks.createTable(catalog, "kept");
    TableIdentifier second = InJvmTasks.createTable(catalog, "other");
    Map<String, String> config = InJvmTasks.routedConfig("never", warehouse(), 5, first, second);
    config.put("floe.table.idle.ms", "-1");

    FloeIcebergSinkTask task = InJvmTasks.started(config, new InJvmTasks.RecordingContext());
    try {
      task.open(List.of(TP));
      task.put(routed(0, 5, offset -> "kept"));
      InJvmTasks.awaitCommitted(task, 5);
      task.put(routed(5, 10, offset -> "other"));
      InJvmTasks.awaitCommitted(task, 10);
      task.put(routed(10, 15, offset -> "other"));
      InJvmTasks.awaitCommitted(task, 15);
      assertEquals(2, threadsOf("db.kept"), "two cycles without records, and the threads are still there");
    } finally {
      task.stop();
    }
    assertEquals(0, threadsOf("db.kept") + threadsOf("db.other"), "stop ends every table's threads");
    assertEquals(ids(0, 5), ids(catalog.loadTable(first)));
    assertEquals(ids(5, 15), ids(catalog.loadTable(second)));
  }

  /**
   * A dynamically routed table idle past floe.table.idle.ms is let go (a rebalance then reads the
   * offsets of the tables in use only); its next record loads it again, and records it already
   * holds, delivered again, are skipped as before.
   */
  @Test
  void aDynamicallyRoutedTableIdleIsLetGoAndLoadedAgainWithWhatItHolds() throws Exception {
    TableIdentifier first = InJvmTasks.createTable(catalog, "first");
    TableIdentifier second = InJvmTasks.createTable(catalog, "second");
    Map<String, String> config = InJvmTasks.dynamicConfig("forgotten", warehouse(), 5);
    config.put("floe.table.idle.ms", "0");

    FloeIcebergSinkTask task = InJvmTasks.started(config, new InJvmTasks.RecordingContext());
    try {
      task.open(List.of(TP));
      task.put(routed(0, 5, offset -> "db.first"));
      InJvmTasks.awaitCommitted(task, 5);
      assertEquals(1, openTables("forgotten"));

      task.put(routed(5, 10, offset -> "db.second"));
      InJvmTasks.awaitCommitted(task, 10);
      assertEquals(1, openTables("forgotten"), "the first table, idle for a cycle, was let go");

      // Connect delivers the partition again from 0 (a rewind, say): each table skips what it holds
      task.put(routed(0, 15, offset -> offset < 5 || offset >= 10 ? "db.first" : "db.second"));
      InJvmTasks.awaitCommitted(task, 15);
    } finally {
      task.stop();
    }
    Map<Long, Integer> expectedFirst = new TreeMap<>(ids(0, 5));
    expectedFirst.putAll(ids(10, 15));
    assertEquals(expectedFirst, ids(catalog.loadTable(first)));
    assertEquals(ids(5, 10), ids(catalog.loadTable(second)));
  }

  private static int openTables(String connector) throws Exception {
    ObjectName name = new ObjectName("dev.floe:type=FloeIcebergSinkTask,connector=" + connector + ",task=0");
    return (Integer) ManagementFactory.getPlatformMBeanServer().getAttribute(name, "OpenTables");
  }

  /** Live threads of the table named {@code table}: its decode and writer threads. */
  private static int threadsOf(String table) {
    return (int) Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive()
            && (t.getName().equals("floe-connect-decode-" + table) || t.getName().equals("floe-connect-writer-" + table)))
        .count();
  }

  /** Its executors have terminated when the commit returns; the threads themselves end just after. */
  private static void awaitNoThreadsOf(String table) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (threadsOf(table) > 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("table " + table + " still has " + threadsOf(table) + " threads after 10 s idle");
      }
      Thread.sleep(10);
    }
  }
}
