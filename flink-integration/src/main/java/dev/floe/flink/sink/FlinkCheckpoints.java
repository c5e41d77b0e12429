package dev.floe.flink.sink;

import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The snapshot summary keys Iceberg's Flink sinks write with every commit, and the lookup a
 * restored job makes in them. floe writes and reads the same keys the same way, so a table moves
 * between Iceberg's sink and floe's without losing or repeating a checkpoint.
 *
 * <p>floe also writes {@value #RUN_ID}, which Iceberg's sinks do not: a job id alone does not name
 * one run of a job. Flink's application mode with high availability gives every deployment of a
 * job the id its cluster id makes, also a deployment started without state, whose checkpoint ids
 * start from 1 again, and one restored from a savepoint an earlier run also started from (a
 * rollback), whose checkpoint ids repeat that run's. Matched on the job id alone, such a run's
 * checkpoints look committed by the run before it and are dropped, as Iceberg's {@code IcebergSink}
 * 1.11 drops them (apache/iceberg#18098). Every start of the job is a run of its own.
 *
 * <p>The history alone can forget a commit: another writer of the table may expire snapshots
 * while the job is down, the job's last one among them, and its restore would then commit the
 * checkpoint again. So floe also keeps each sink operator's last commit in a table property
 * ({@value #COMMITTED_PREFIX}{@code <operator id>} = {@code <job id>:<run id>:<checkpoint id>}),
 * set in the same commit, which expiry does not touch. One property per sink operator: a job
 * deployed again (a new job id, the same operator) takes its predecessor's over, and so would
 * another job whose sink has the same uid.
 */
final class FlinkCheckpoints {
  static final String JOB_ID = "flink.job-id";
  static final String OPERATOR_ID = "flink.operator-id";
  static final String MAX_COMMITTED_CHECKPOINT_ID = "flink.max-committed-checkpoint-id";
  /** floe's own key: the run ({@link FloeCommittable#runId}) that committed the snapshot. */
  static final String RUN_ID = "floe.flink.run-id";

  /** floe's table property of an operator's last commit: the prefix, then the operator id. */
  static final String COMMITTED_PREFIX = "floe.flink.committed.";

  /** What the lookup returns when the job has committed nothing to the table. */
  static final long NONE = -1L;

  private FlinkCheckpoints() {}

  /**
   * The highest checkpoint id that run {@code runId} of job {@code jobId}'s operator {@code
   * operatorId} committed to {@code table}: read from the newest ancestor of the current snapshot
   * that it wrote. A snapshot without an operator id (older Iceberg sinks) counts for any operator
   * of the job. Without a run id (a committable restored from a checkpoint of floe before runs were
   * kept) any snapshot of the job and operator counts, run id or not; with one, only snapshots of
   * that run do: a run writes its id into every snapshot it commits.
   */
  static long maxCommittedCheckpointId(Table table, String jobId, String operatorId, String runId) {
    return Math.max(fromHistory(table, jobId, operatorId, runId), fromProperty(table, jobId, operatorId, runId));
  }

  /** The table property naming a commit of {@code committable}'s run, to set with its commit. */
  static Map<String, String> committedProperty(FloeCommittable committable) {
    return Map.of(COMMITTED_PREFIX + committable.operatorId(),
        committable.jobId() + ":" + committable.runId() + ":" + committable.checkpointId());
  }

  /** The checkpoint the operator's property names, if it names this job and run (any run, without a run id). */
  private static long fromProperty(Table table, String jobId, String operatorId, String runId) {
    String committed = table.properties().get(COMMITTED_PREFIX + operatorId);
    if (committed == null) {
      return NONE;
    }
    String[] parts = committed.split(":");
    if (parts.length != 3 || !parts[0].equals(jobId) || (runId != null && !parts[1].equals(runId))) {
      return NONE;
    }
    try {
      return Long.parseLong(parts[2]);
    } catch (NumberFormatException e) {
      return NONE;
    }
  }

  private static long fromHistory(Table table, String jobId, String operatorId, String runId) {
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
      if (runId != null && !runId.equals(summary.get(RUN_ID))) {
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
