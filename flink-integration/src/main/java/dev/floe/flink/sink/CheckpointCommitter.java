package dev.floe.flink.sink;

import dev.floe.flink.IcebergTableRef;
import dev.floe.iceberg.Commits;
import java.io.IOException;
import java.util.Collection;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.WriteResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits each checkpoint's files once. Flink calls it after a checkpoint completes, and again
 * after a restore with the committables the checkpoint held: those the table already has (its
 * snapshot summaries name the job, the operator and a checkpoint at or past theirs) are
 * acknowledged without a second commit, the rest are committed. A failed commit fails the job;
 * its files stay, because the restored committable still names them.
 *
 * <p>Appends of several pending checkpoints go in one commit; with delete files each checkpoint is
 * its own row delta, in order, because a checkpoint's equality deletes must apply to the rows of
 * the checkpoints before it and not to its own.
 */
final class CheckpointCommitter implements Committer<FloeCommittable> {
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointCommitter.class);

  private final Catalog catalog;
  private final Table table;
  private final Counter commits;
  private final Counter committedFiles;
  private volatile long lastCommitMillis;

  CheckpointCommitter(IcebergTableRef tableRef, MetricGroup metrics) {
    this.catalog = tableRef.openCatalog();
    this.table = catalog.loadTable(tableRef.identifier());
    MetricGroup group = metrics.addGroup("floe");
    this.commits = group.counter("commits");
    this.committedFiles = group.counter("committedFiles");
    group.gauge("lastCommitMillis", () -> lastCommitMillis);
  }

  @Override
  public void commit(Collection<CommitRequest<FloeCommittable>> requests) throws IOException {
    if (requests.isEmpty()) {
      return;
    }
    NavigableMap<Long, CommitRequest<FloeCommittable>> byCheckpoint = new TreeMap<>();
    for (CommitRequest<FloeCommittable> request : requests) {
      byCheckpoint.put(request.getCommittable().checkpointId(), request);
    }
    FloeCommittable last = byCheckpoint.lastEntry().getValue().getCommittable();
    table.refresh();
    long committed = FlinkCheckpoints.maxCommittedCheckpointId(table, last.jobId(), last.operatorId());
    byCheckpoint.headMap(committed, true).values().forEach(CommitRequest::signalAlreadyCommitted);

    NavigableMap<Long, WriteResult> pending = new TreeMap<>();
    for (var entry : byCheckpoint.tailMap(committed, false).entrySet()) {
      pending.put(entry.getKey(), WrittenFiles.fromBytes(entry.getValue().getCommittable().files()).toWriteResult(table.specs()));
    }
    if (!pending.isEmpty()) {
      commitPending(pending, last);
    }
  }

  private void commitPending(NavigableMap<Long, WriteResult> pending, FloeCommittable last) {
    boolean anyDeletes = pending.values().stream().anyMatch(r -> r.deleteFiles().length > 0);
    if (!anyDeletes) {
      WriteResult all = WriteResult.builder().addAll(pending.values()).build();
      if (all.dataFiles().length == 0) {
        return; // nothing to commit; a restore finds the checkpoints before, and nothing is lost
      }
      commit(all, pending.lastKey(), last, false);
      return;
    }
    for (var entry : pending.entrySet()) {
      commit(entry.getValue(), entry.getKey(), last, true);
    }
  }

  private void commit(WriteResult files, long checkpointId, FloeCommittable last, boolean rowDelta) {
    Map<String, String> summary =
        Map.of(
            FlinkCheckpoints.JOB_ID, last.jobId(),
            FlinkCheckpoints.OPERATOR_ID, last.operatorId(),
            FlinkCheckpoints.MAX_COMMITTED_CHECKPOINT_ID, Long.toString(checkpointId));
    long start = System.nanoTime();
    if (rowDelta) {
      Commits.rowDelta(table, files, summary);
    } else {
      Commits.append(table, files, summary);
    }
    lastCommitMillis = (System.nanoTime() - start) / 1_000_000;
    commits.inc();
    committedFiles.inc(files.dataFiles().length + files.deleteFiles().length);
    LOG.info(
        "committed checkpoint {} of job {} to {}: {} data files, {} delete files in {} ms",
        checkpointId, last.jobId(), table.name(), files.dataFiles().length, files.deleteFiles().length, lastCommitMillis);
  }

  @Override
  public void close() throws Exception {
    IcebergTableRef.close(catalog);
  }
}
