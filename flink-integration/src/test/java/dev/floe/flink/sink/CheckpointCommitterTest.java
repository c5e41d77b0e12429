package dev.floe.flink.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;

/** The committer commits each checkpoint once, also when the table's history no longer shows the commit. */
class CheckpointCommitterTest extends IdNameTableTest {
  private static final TableIdentifier TABLE = TableIdentifier.of("db", "events");

  CheckpointCommitterTest() {
    super(TABLE, false);
  }

  /**
   * A job commits checkpoint 1 and goes down; another writer commits and expires every snapshot
   * but its own, the job's among them. Restored, the job's committer is handed checkpoint 1 again:
   * it must find it committed (before, its rows landed twice).
   */
  @Test
  void aCheckpointWhoseSnapshotAnotherWriterExpiredIsNotCommittedAgain() throws Exception {
    FloeCommittable jobs = committable("job-a", 1, 1, 2);
    assertEquals(List.of(false), commit(jobs));

    assertEquals(List.of(false), commit(new FloeCommittable(written(10, 11), "job-b", "other-operator", "run-9", 1)));
    Table table = catalog.loadTable(TABLE);
    table.expireSnapshots().expireOlderThan(System.currentTimeMillis() + 1).retainLast(1).commit();
    table.refresh();
    assertEquals(1, countSnapshots(table), "only the other writer's snapshot is left");

    assertEquals(List.of(true), commit(jobs), "the restored checkpoint is found committed");
    assertEquals(Map.of(1L, 1, 2L, 1, 10L, 1, 11L, 1), idCounts(catalog.loadTable(TABLE)));
  }

  /** A later run of the same operator commits under the property too; an earlier run's checkpoints are not taken for it. */
  @Test
  void thePropertyNamesTheRunThatCommitted() throws Exception {
    FloeCommittable first = committable("job-a", 5, 1, 2);
    assertEquals(List.of(false), commit(first));
    Table table = catalog.loadTable(TABLE);
    assertTrue(table.properties().get(FlinkCheckpoints.COMMITTED_PREFIX + "operator").endsWith(":5"),
        table.properties().toString());

    FloeCommittable otherRun = new FloeCommittable(
        written(3, 4), "job-a", "operator", "run-2", 1); // a new run restarts checkpoint ids
    assertEquals(List.of(false), commit(otherRun), "run-2's checkpoint 1 is its own, not run-1's");
    assertEquals(Map.of(1L, 1, 2L, 1, 3L, 1, 4L, 1), idCounts(catalog.loadTable(TABLE)));
  }

  /** Checkpoint {@code checkpointId} of run-1 of {@code job}'s operator, with rows {@code ids}. */
  private FloeCommittable committable(String job, long checkpointId, long... ids) throws Exception {
    return new FloeCommittable(written(ids), job, "operator", "run-1", checkpointId);
  }

  /** One writer's files holding rows {@code ids}. */
  private byte[] written(long... ids) throws Exception {
    try (RowDataWriter writer = new RowDataWriter(
        ref, new RowDataWriterSettings(IdNameTable.ROWS, RowWriteMode.APPEND, 16, Map.of()), 0, 0, new UnregisteredMetricsGroup())) {
      for (long id : ids) {
        writer.write(GenericRowData.of(id, StringData.fromString("n" + id)), null);
      }
      return WrittenFiles.concat(writer.prepareCommit()).bytes();
    }
  }

  /** Commits in a committer of its own, as a restored job's; returns whether each was found committed. */
  private List<Boolean> commit(FloeCommittable... committables) throws Exception {
    return IdNameTable.commit(ref, List.of(committables));
  }

  private static int countSnapshots(Table table) {
    int n = 0;
    for (var ignored : table.snapshots()) {
      n++;
    }
    return n;
  }

  private static Map<Long, Integer> idCounts(Table table) throws Exception {
    Map<Long, Integer> out = new TreeMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(r -> out.merge((Long) r.getField("id"), 1, Integer::sum));
    }
    return out;
  }
}
