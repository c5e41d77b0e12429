package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.ids;
import static dev.floe.connect.InJvmTasks.routed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.kafka.sink.SnapshotOffsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * Two tables routed by a field, one of them ("rare") getting records rarely. Each open() seeks the
 * partition to the lowest offset the tables hold: before {@code floe.idle.commit.cycles}, the rare
 * table kept the offset of its last data, and every rebalance read all the records since then again.
 */
class TaskIdleTableOffsetsTest extends InJvmTaskTest {
  private static final String GROUP = "connect-idle";
  private static final TableIdentifier BUSY = TableIdentifier.of("db", "busy");
  private static final TableIdentifier RARE = TableIdentifier.of("db", "rare");

  /** Tables db.busy and db.rare routed by field, cycles of 5 records, {@code idleCommitCycles} if not null. */
  private Map<String, String> busyAndRare(String idleCommitCycles) {
    InJvmTasks.createTable(catalog, "busy");
    InJvmTasks.createTable(catalog, "rare");
    Map<String, String> config = InJvmTasks.routedConfig("idle", warehouse(), 5, BUSY, RARE);
    if (idleCommitCycles != null) {
      config.put(ConnectorSettings.IDLE_COMMIT_CYCLES, idleCommitCycles);
    }
    return config;
  }

  @Test
  void anIdleTableStoresTheOffsetsReachedEveryFewCycles() throws Exception {
    Map<String, String> config = busyAndRare("2");

    // A cycle ends at the first put that reaches 5 records: puts of 5, 10 busy-only cycles
    List<List<org.apache.kafka.connect.sink.SinkRecord>> puts = new ArrayList<>();
    puts.add(routed(0, 10, offset -> offset % 2 == 0 ? "busy" : "rare"));
    for (long from = 10; from < 60; from += 5) {
      puts.add(routed(from, from + 5, offset -> "busy"));
    }
    @SuppressWarnings("unchecked")
    List<org.apache.kafka.connect.sink.SinkRecord>[] each = puts.toArray(new List[0]);
    InJvmTasks.run(config, 60, each);

    List<Long> withoutFiles = offsetsStoredWithoutFiles(catalog.loadTable(RARE));
    assertTrue(withoutFiles.size() >= 2, "the idle table was committed without files: " + withoutFiles);
    for (int i = 1; i < withoutFiles.size(); i++) {
      assertTrue(withoutFiles.get(i) - withoutFiles.get(i - 1) >= 10,
          "every 2 cycles of 5 records, not every cycle: " + withoutFiles);
    }
    assertTrue(stored(RARE) > 10, "past its last data: " + stored(RARE));
    assertEquals(expected(0, 60, offset -> offset < 10 && offset % 2 == 1), ids(catalog.loadTable(RARE)));
    assertEquals(expected(0, 60, offset -> offset >= 10 || offset % 2 == 0), ids(catalog.loadTable(BUSY)));
  }

  @Test
  void theLastCycleBeforeClosingStoresTheOffsetsReached() throws Exception {
    Map<String, String> config = busyAndRare(null);

    runAndClose(config);
    assertEquals(30L, stored(RARE), "at close, the offsets reached");
    assertEquals(List.of(Map.of(TP, 30L)), reopened(config), "the next owner reads on from there");
  }

  @Test
  void withZeroTheIdleTableHoldsThePartitionBackToItsLastData() throws Exception {
    Map<String, String> config = busyAndRare("0");

    runAndClose(config);
    assertEquals(10L, stored(RARE));
    assertEquals(List.of(Map.of(TP, 10L)), reopened(config), "20 records read again");
  }

  /** 0-9 to both tables in turns, 10-29 to the busy one, in cycles of 5; then the partition is closed. */
  private static void runAndClose(Map<String, String> config) throws InterruptedException {
    FloeIcebergSinkTask task = InJvmTasks.started(config, new InJvmTasks.RecordingContext());
    try {
      task.open(List.of(TP));
      task.put(routed(0, 10, offset -> offset % 2 == 0 ? "busy" : "rare"));
      task.put(routed(10, 30, offset -> "busy"));
      InJvmTasks.awaitCommitted(task, 30);
      task.close(List.of(TP)); // as Connect does before a rebalance or stop
    } finally {
      task.stop();
    }
  }

  /** The rewinds a new task asks of Connect as it opens the partition. */
  private static List<Map<org.apache.kafka.common.TopicPartition, Long>> reopened(Map<String, String> config) {
    InJvmTasks.RecordingContext context = new InJvmTasks.RecordingContext();
    FloeIcebergSinkTask task = InJvmTasks.started(config, context);
    try {
      task.open(List.of(TP));
      return List.copyOf(context.rewinds);
    } finally {
      task.stop();
    }
  }

  private long stored(TableIdentifier id) {
    Table table = catalog.loadTable(id);
    return SnapshotOffsets.latest(((HasTableOperations) table).operations().current(), GROUP, List.of(TP))
        .get(TP).next();
  }

  /** The offsets stored by the table's snapshots that added no file, in commit order. */
  private static List<Long> offsetsStoredWithoutFiles(Table table) {
    List<Long> out = new ArrayList<>();
    for (Snapshot s : table.snapshots()) {
      String json = s.summary().get(SnapshotOffsets.key(GROUP));
      if (json != null && s.summary().getOrDefault(SnapshotSummary.ADDED_FILES_PROP, "0").equals("0")) {
        out.add(SnapshotOffsets.parse(json).get(TP).next());
      }
    }
    return out;
  }

  private static Map<Long, Integer> expected(long from, long to, java.util.function.LongPredicate in) {
    Map<Long, Integer> out = new TreeMap<>();
    for (long offset = from; offset < to; offset++) {
      if (in.test(offset)) {
        out.put(offset, 1);
      }
    }
    return out;
  }
}
