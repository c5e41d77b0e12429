package dev.floe.flink.sink;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The snapshot summary keys Iceberg's Flink sinks write with every commit, and the lookup a
 * restored job makes in them. floe writes and reads the same keys the same way, so a table moves
 * between Iceberg's sink and floe's without losing or repeating a checkpoint.
 */
final class FlinkCheckpoints {
  static final String JOB_ID = "flink.job-id";
  static final String OPERATOR_ID = "flink.operator-id";
  static final String MAX_COMMITTED_CHECKPOINT_ID = "flink.max-committed-checkpoint-id";

  /** What the lookup returns when the job has committed nothing to the table. */
  static final long NONE = -1L;

  private FlinkCheckpoints() {}

  /**
   * The highest checkpoint id job {@code jobId}'s operator {@code operatorId} committed to {@code
   * table}: read from the newest ancestor of the current snapshot that the job wrote. A snapshot
   * without an operator id (older Iceberg sinks) counts for any operator of the job.
   */
  static long maxCommittedCheckpointId(Table table, String jobId, String operatorId) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return NONE;
    }
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      var summary = snapshot.summary();
      if (!jobId.equals(summary.get(JOB_ID))) {
        continue;
      }
      String committedBy = summary.get(OPERATOR_ID);
      if (committedBy != null && !committedBy.equals(operatorId)) {
        continue;
      }
      String checkpoint = summary.get(MAX_COMMITTED_CHECKPOINT_ID);
      if (checkpoint != null) {
        return Long.parseLong(checkpoint);
      }
    }
    return NONE;
  }
}
