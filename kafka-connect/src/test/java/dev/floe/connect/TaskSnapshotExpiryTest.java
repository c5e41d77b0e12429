package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.awaitCommitted;
import static dev.floe.connect.InJvmTasks.ids;
import static dev.floe.connect.InJvmTasks.records;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.connect.InJvmTasks.RecordingContext;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * {@code floe.expire-snapshots.interval-ms}: a task expires its table's old snapshots after its
 * commits, by the table's retention properties, and the table stays exact.
 */
class TaskSnapshotExpiryTest extends InJvmTaskTest {
  @Test
  void aTaskExpiresItsTablesSnapshotsByTheTablesRetention() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "pruned");
    catalog.loadTable(id).updateProperties()
        .set(TableProperties.MAX_SNAPSHOT_AGE_MS, "1")
        .set(TableProperties.MIN_SNAPSHOTS_TO_KEEP, "2")
        .commit();
    Map<String, String> config = InJvmTasks.config("pruning", warehouse(), id, 10);
    config.put(ConnectorSettings.EXPIRE_SNAPSHOTS_INTERVAL, "1");
    FloeIcebergSinkTask task = new FloeIcebergSinkTask();
    task.initialize(new RecordingContext());
    task.start(config);
    try {
      task.open(List.of(TP));
      for (long from = 0; from < 60; from += 10) {
        task.put(records(from, from + 10));
        awaitCommitted(task, from + 10);
      }
    } finally {
      task.stop();
    }
    Table table = catalog.loadTable(id);
    long snapshots = 0;
    for (var ignored : table.snapshots()) {
      snapshots++;
    }
    assertEquals(2, snapshots, "six commits, the two snapshots the table keeps");
    assertEquals(ids(0, 60), ids(table));
  }
}
