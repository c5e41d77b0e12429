package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.ids;
import static dev.floe.connect.InJvmTasks.records;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.connect.InJvmTasks.RecordingContext;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tables' storage fails every write for a while after the first cycle landed (the catalog's
 * FileIO throws I/O errors, as for an unreachable store). Before, the task failed at the first
 * failed file and stayed failed until restarted by hand; now the cycle is dropped and read again
 * from the tables once the outage is over, and one that outlasts {@code
 * floe.storage.retry.timeout.ms} fails the task saying so.
 */
class TaskStorageOutageTest extends InJvmTaskTest {
  @AfterEach
  void storageBack() {
    FailingWritesCatalog.down = false;
  }

  private Map<String, String> config(TableIdentifier id, long retryTimeoutMs) {
    Map<String, String> config = InJvmTasks.config(id.name(), warehouse(), id, 10);
    InJvmTasks.throughCatalog(config, FailingWritesCatalog.class);
    config.put("floe.storage.retry.timeout.ms", Long.toString(retryTimeoutMs));
    return config;
  }

  @Test
  void aCycleThatFailedOnTheOutageIsReadAgainOnceItIsOver() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "ridden_out");
    RecordingContext context = new RecordingContext();
    FloeIcebergSinkTask task = InJvmTasks.started(config(id, 60_000), context);
    try {
      task.open(List.of(TP));
      task.put(records(0, 10));
      InJvmTasks.awaitCommitted(task, 10);
      FailingWritesCatalog.down = true;
      task.put(records(10, 20)); // a whole cycle: its files cannot be written
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (context.rewinds.isEmpty() && System.nanoTime() < deadline) {
        task.put(List.of()); // Connect's next polls found nothing new
        Thread.sleep(20);
      }
      assertEquals(List.of(Map.of(TP, 10L)), context.rewinds, "the failed cycle is read again from its first record");
      FailingWritesCatalog.down = false;
      task.put(records(10, 20));
      task.close(List.of(TP)); // revoked: commits and waits
      Object retries = ManagementFactory.getPlatformMBeanServer().getAttribute(
          new ObjectName("dev.floe:type=FloeIcebergSinkTask,connector=ridden_out,task=0"), "OutageRetries");
      assertTrue((Long) retries >= 1, "counted: " + retries);
    } finally {
      task.stop();
    }
    assertEquals(ids(0, 20), ids(catalog.loadTable(id)), "every record once");
  }

  @Test
  void anOutagePastTheTimeoutFailsTheTaskSayingSo() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "timed_out");
    RecordingContext context = new RecordingContext();
    FloeIcebergSinkTask task = InJvmTasks.started(config(id, 1_500), context);
    try {
      task.open(List.of(TP));
      task.put(records(0, 10));
      InJvmTasks.awaitCommitted(task, 10);
      FailingWritesCatalog.down = true;
      ConnectException failed = assertThrows(ConnectException.class, () -> {
        long offset = 10;
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
          task.put(records(offset, offset + 10)); // read again after each rewind, failing again
          offset += 10;
          Thread.sleep(20);
        }
      });
      assertTrue(failed.getMessage().startsWith("the tables' storage or catalog kept failing for")
          && failed.getMessage().contains("floe.storage.retry.timeout.ms is PT1.5S"), failed.getMessage());
    } finally {
      task.stop();
    }
    assertEquals(ids(0, 10), ids(catalog.loadTable(id)), "the first cycle only: nothing past it was committed");
  }
}
