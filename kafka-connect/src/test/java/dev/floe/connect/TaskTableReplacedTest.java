package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.records;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.connect.InJvmTasks.RecordingContext;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The table is replaced ({@code CREATE OR REPLACE TABLE}) with {@code id} turned from a long into a
 * double while a cycle's commit is under way: the commit is fenced (its files hold longs the table
 * would now read as doubles) and the task reads the cycle again, for the new schema.
 */
class TaskTableReplacedTest extends InJvmTaskTest {
  private static final Schema ID_AS_DOUBLE = new Schema(
      Types.NestedField.required(1, "id", Types.DoubleType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));

  @Test
  void aCycleWrittenBeforeTheReplaceIsReadAgainForTheNewSchema() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "replaced");
    Map<String, String> config = InJvmTasks.config("replaced", warehouse(), id, 10);
    InJvmTasks.throughCatalog(config, HeldCommitsCatalog.class);
    CountDownLatch gate = new CountDownLatch(1);
    HeldCommitsCatalog.gate = gate;
    RecordingContext context = new RecordingContext();
    FloeIcebergSinkTask task = InJvmTasks.started(config, context);
    try {
      task.open(List.of(TP));
      task.put(records(0, 10)); // a whole cycle: its commit waits at the gate
      catalog.buildTable(id, ID_AS_DOUBLE)
          .withProperty(TableProperties.FORMAT_VERSION, "2")
          .replaceTransaction()
          .commitTransaction();
      gate.countDown();
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (context.rewinds.isEmpty() && System.nanoTime() < deadline) {
        task.preCommit(Map.of());
        task.put(List.of()); // Connect's next poll found nothing new
        Thread.sleep(20);
      }
      assertEquals(List.of(Map.of(TP, 0L)), context.rewinds, "the fenced cycle is read again from its first record");
      task.put(records(0, 10));
      task.close(List.of(TP)); // revoked: commits and waits
    } finally {
      gate.countDown();
      HeldCommitsCatalog.gate = new CountDownLatch(0);
      task.stop();
    }
    Table table = catalog.loadTable(id);
    Map<Double, String> rows = new TreeMap<>();
    try (CloseableIterable<Record> read = IcebergGenerics.read(table).build()) {
      for (Record row : read) {
        assertEquals(null, rows.put((Double) row.getField("id"), (String) row.getField("name")), "one row per id");
      }
    }
    Map<Double, String> expected = new TreeMap<>();
    for (long i = 0; i < 10; i++) {
      expected.put((double) i, "n" + i);
    }
    assertEquals(expected, rows, "every record once, its id read as the double it now is");
  }
}
