package dev.floe.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * The task's JMX metrics as the README names and describes them (helper-60 found all three
 * wrong): the documented name, records still uncommitted while their cycle's commit is under way,
 * and a task stopping late that must leave its successor's metrics registered.
 */
class TaskMetricsTest extends InJvmTaskTest {
  private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

  private static ObjectName documented(String connector) throws Exception {
    return new ObjectName("dev.floe:type=FloeIcebergSinkTask,connector=" + connector + ",task=0");
  }

  @Test
  void theMetricsAreUnderTheDocumentedName() throws Exception {
    try (TaskMetrics plain = new TaskMetrics("orders-sink", 0); TaskMetrics odd = new TaskMetrics("a,b=c", 0)) {
      assertTrue(JMX.isRegistered(documented("orders-sink")), "a plain name is not quoted");
      assertTrue(JMX.isRegistered(documented(ObjectName.quote("a,b=c"))), "one JMX cannot take as it is, is");
    }
    assertTrue(!JMX.isRegistered(documented("orders-sink")), "and unregistered on close");
  }

  @Test
  void recordsOfACycleWhoseCommitIsUnderWayAreStillUncommitted() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "held");
    Map<String, String> config = InJvmTasks.config("held", warehouse(), id, 100);
    InJvmTasks.throughCatalog(config, HeldCommitsCatalog.class);
    CountDownLatch gate = new CountDownLatch(1);
    HeldCommitsCatalog.gate = gate;
    FloeIcebergSinkTask task = InJvmTasks.started(config, new InJvmTasks.RecordingContext());
    try {
      task.open(List.of(InJvmTasks.TP));
      task.put(InJvmTasks.records(0, 100)); // a whole cycle: handed to the commit thread
      task.put(InJvmTasks.records(100, 130)); // the next one begins
      assertEquals(130L, JMX.getAttribute(documented("held"), "UncommittedRecords"), "the cycle being committed counts");
      gate.countDown();
      InJvmTasks.awaitCommitted(task, 100);
      assertEquals(30L, JMX.getAttribute(documented("held"), "UncommittedRecords"), "once it landed, the rest");
    } finally {
      gate.countDown();
      HeldCommitsCatalog.gate = new CountDownLatch(0);
      task.stop();
    }
  }

  @Test
  void aTaskStoppingAfterItsSuccessorStartedLeavesTheSuccessorsMetrics() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "overlap");
    Map<String, String> config = InJvmTasks.config("overlap", warehouse(), id, 100);
    FloeIcebergSinkTask old = InJvmTasks.started(config, new InJvmTasks.RecordingContext());
    FloeIcebergSinkTask successor = InJvmTasks.started(config, new InJvmTasks.RecordingContext());
    try {
      successor.open(List.of(InJvmTasks.TP));
      old.stop(); // Connect gave up waiting for it, and it ends now
      successor.put(InJvmTasks.records(0, 100));
      InJvmTasks.awaitCommitted(successor, 100);
      assertTrue(JMX.isRegistered(documented("overlap")), "the running task's metrics are still registered");
      assertEquals(100L, JMX.getAttribute(documented("overlap"), "RecordsPut"));
    } finally {
      successor.stop();
    }
  }
}
