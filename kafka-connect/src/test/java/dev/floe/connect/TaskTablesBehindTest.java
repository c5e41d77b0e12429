package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.ids;
import static dev.floe.connect.InJvmTasks.routed;
import static dev.floe.connect.InJvmTasks.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.kafka.sink.SnapshotOffsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * Two tables routed by a field hold different offsets of one partition: a table that gets records
 * rarely is behind the busy one. A task started again seeks to the lower of the two, and the cycles
 * of that re-read end below the busy table's offset. Its offset must not move back with them, or
 * the records between are written to it again: before, the busy table got records 25-29 twice.
 */
class TaskTablesBehindTest extends InJvmTaskTest {
  @Test
  void aPartitionReadAgainForATableBehindDoesNotTakeTheOthersOffsetBack() throws Exception {
    TableIdentifier busy = InJvmTasks.createTable(catalog, "busy");
    TableIdentifier rare = InJvmTasks.createTable(catalog, "rare");
    Map<String, String> config = InJvmTasks.routedConfig("behind", warehouse(), 5, busy, rare);

    // 0-19 to both in turns, then 20-29 to the busy table only: it holds 30, the rare one 20
    run(config, 30, routed(0, 20, offset -> offset % 2 == 0 ? "busy" : "rare"), routed(20, 30, offset -> "busy"));
    assertEquals(30L, stored(busy));
    assertEquals(20L, stored(rare));

    // Started again: the task seeks to 20, and Connect delivers 20-29 again, a cycle of 5 records
    // committed after the first 5
    InJvmTasks.RecordingContext context = new InJvmTasks.RecordingContext();
    FloeIcebergSinkTask task = InJvmTasks.started(config, context);
    try {
      task.open(List.of(TP));
      assertEquals(List.of(Map.of(TP, 20L)), context.rewinds);
      task.put(routed(20, 25, offset -> "busy"));
      InJvmTasks.awaitCommitted(task, 25);
      assertEquals(30L, stored(busy), "the busy table's offset did not move back");
      task.put(routed(25, 30, offset -> "busy"));
      InJvmTasks.awaitCommitted(task, 30);
    } finally {
      task.stop();
    }
    assertEquals(30L, stored(busy));
    Map<Long, Integer> expected = new TreeMap<>();
    for (long offset = 0; offset < 30; offset++) {
      if (offset >= 20 || offset % 2 == 0) {
        expected.put(offset, 1);
      }
    }
    assertEquals(expected, ids(catalog.loadTable(busy)), "each record once");
  }

  private long stored(TableIdentifier id) {
    Table table = catalog.loadTable(id);
    return SnapshotOffsets.latest(((HasTableOperations) table).operations().current(), "connect-behind", List.of(TP))
        .get(TP).next();
  }
}
