package dev.floe.flink.sink;

import dev.floe.flink.IcebergTableRef;
import dev.floe.iceberg.Commits;
import dev.floe.iceberg.DeletionVectorUpgrade;
import dev.floe.iceberg.SnapshotExpiry;
import dev.floe.iceberg.WrittenSchemas;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.WriteResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits each checkpoint's files once. Flink calls it after a checkpoint completes, and again
 * after a restore with the committables the checkpoint held: those the table already has (its
 * snapshot summaries name the job, the operator, the run and a checkpoint at or past theirs) are
 * acknowledged without a second commit, the rest are committed. A failed commit fails the job;
 * its files stay, because the restored committable still names them.
 *
 * <p>Appends of several pending checkpoints go in one commit; with delete files each checkpoint is
 * its own row delta, in order, because a checkpoint's equality deletes must apply to the rows of
 * the checkpoints before it and not to its own.
 *
 * <p>A checkpoint's position-delete files written while the table was v2 are converted to
 * deletion vectors when it is v3 by the time they are committed ({@link DeletionVectorUpgrade}).
 *
 * <p>With snapshot expiry on, the table's old snapshots are expired after a commit when due. The
 * snapshot a restore looks for (this job's last commit) is the current one right after the
 * commit, which expiry keeps; another writer's expiry may not, and a table property names the
 * operator's last commit too ({@link FlinkCheckpoints}).
 */
final class CheckpointCommitter implements Committer<FloeCommittable> {
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointCommitter.class);

  private final Catalog catalog;
  private final Table table;
  private final Counter commits;
  private final Counter committedFiles;
  private final Counter expiredSnapshots;
  private final SnapshotExpiry expiry;
  /** Whether each checkpoint's files replace the partitions they fall into (INSERT OVERWRITE). */
  private final boolean overwrite;
  private volatile long lastCommitMillis;

  CheckpointCommitter(IcebergTableRef tableRef, MetricGroup metrics, SnapshotExpiry expiry, boolean overwrite) {
    this.expiry = expiry;
    this.overwrite = overwrite;
    this.catalog = tableRef.openCatalog();
    try {
      this.table = catalog.loadTable(tableRef.identifier());
    } catch (RuntimeException e) { // the table was dropped, say: Flink gets no committer to close
      try {
        IcebergTableRef.close(catalog);
      } catch (Exception suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    MetricGroup group = metrics.addGroup("floe");
    this.commits = group.counter("commits");
    this.committedFiles = group.counter("committedFiles");
    this.expiredSnapshots = group.counter("expiredSnapshots");
    group.gauge("lastCommitMillis", () -> lastCommitMillis);
  }

  @Override
  public void commit(Collection<CommitRequest<FloeCommittable>> requests) throws IOException {
    if (requests.isEmpty()) {
      return;
    }
    table.refresh();
    int formatBefore = TableUtil.formatVersion(table);
    try {
      commitRequests(requests);
    } catch (IllegalArgumentException e) {
      // Iceberg refuses position-delete files once the table is v3, also in a commit under way
      // when the upgrade lands; what it refused is converted on the second try, once. Any other
      // refusal, or one with the table v3 from the start, is the job's failure.
      table.refresh();
      if (formatBefore >= 3 || TableUtil.formatVersion(table) < 3) {
        throw e;
      }
      LOG.warn("table {} was upgraded to format v{} during a commit ({}): committing again with its position deletes"
          + " as deletion vectors", table.name(), TableUtil.formatVersion(table), e.getMessage());
      commitRequests(requests);
    }
  }

  private void commitRequests(Collection<CommitRequest<FloeCommittable>> requests) throws IOException {
    table.refresh();
    Map<List<String>, Long> committedByRun = new HashMap<>();
    NavigableMap<Long, FloeCommittable> pending = new TreeMap<>();
    List<FloeCommittable> landed = new ArrayList<>();
    for (CommitRequest<FloeCommittable> request : requests) {
      FloeCommittable c = request.getCommittable();
      long committed = committedByRun.computeIfAbsent(
          Arrays.asList(c.jobId(), c.operatorId(), c.runId()),
          run -> FlinkCheckpoints.maxCommittedCheckpointId(table, c.jobId(), c.operatorId(), c.runId()));
      if (c.checkpointId() <= committed) {
        request.signalAlreadyCommitted();
        landed.add(c);
      } else {
        pending.put(c.checkpointId(), c);
      }
    }
    if (!pending.isEmpty()) {
      commitPending(pending);
      landed.addAll(pending.values());
      SnapshotExpiry.Result expired = expiry.maybeExpire(table);
      if (expired != null) {
        expiredSnapshots.inc(expired.expired());
      }
    }
    deleteManifestsWrittenAhead(landed);
  }

  /**
   * Deletes the manifests committed checkpoints' files were written ahead into: the commit copied
   * their entries into the table's own manifests. A committable restored again later is found
   * committed without reading them. Failures are logged: an orphan file, nothing lost.
   */
  private void deleteManifestsWrittenAhead(List<FloeCommittable> landed) {
    for (FloeCommittable c : landed) {
      List<String> locations;
      try {
        locations = WrittenFiles.fromBytes(c.files()).manifestLocations();
      } catch (IOException | RuntimeException e) {
        LOG.warn("could not read the manifests of checkpoint {} of job {} to delete them: {}", c.checkpointId(),
            c.jobId(), e.toString());
        continue;
      }
      for (String location : locations) {
        try {
          table.io().deleteFile(location);
        } catch (RuntimeException e) {
          LOG.warn("could not delete manifest {} of checkpoint {} after its commit: {}", location, c.checkpointId(),
              e.toString());
        }
      }
    }
  }

  /**
   * Appends of one run's checkpoints go in one commit, named after the last of them; anything else
   * (delete files, or checkpoints of different runs after a restore) commits checkpoint by checkpoint.
   */
  private void commitPending(NavigableMap<Long, FloeCommittable> pending) throws IOException {
    NavigableMap<Long, WriteResult> results = new TreeMap<>();
    for (var entry : pending.entrySet()) {
      WrittenFiles files = WrittenFiles.fromBytes(entry.getValue().files());
      requireReadable(files, entry.getValue());
      WriteResult written = files.toWriteResult(table.specs(), table.io());
      // written for the table at v2, committed to it at v3: the checkpoint's files must land,
      // since its records are behind the restored source, so its position deletes are rewritten
      WriteResult committable = DeletionVectorUpgrade.convert(table, written);
      if (committable != written) {
        LOG.warn("table {} is format v{} now; the position deletes of checkpoint {} were written again as deletion"
            + " vectors", table.name(), TableUtil.formatVersion(table), entry.getKey());
      }
      results.put(entry.getKey(), committable);
    }
    FloeCommittable last = pending.lastEntry().getValue();
    boolean oneRun = pending.values().stream().allMatch(c -> sameRun(c, last));
    boolean anyDeletes = results.values().stream().anyMatch(r -> r.deleteFiles().length > 0);
    if (oneRun && !anyDeletes) {
      WriteResult all = WriteResult.builder().addAll(results.values()).build();
      if (all.dataFiles().length == 0) {
        return; // nothing to commit; a restore finds the checkpoints before, and nothing is lost
      }
      commit(all, last, false);
      return;
    }
    for (var entry : pending.entrySet()) {
      WriteResult result = results.get(entry.getKey());
      if (result.dataFiles().length > 0 || result.deleteFiles().length > 0) {
        commit(result, entry.getValue(), anyDeletes);
      }
    }
  }

  /**
   * Refuses a checkpoint whose files the table's schema no longer reads as they were written ({@link
   * WrittenSchemas}: the table replaced with a column's type changed): committed, they would leave
   * the table unreadable. Unlike the Kafka sink, a Flink job cannot write them again by itself, since
   * the restored source has moved past their records. Checked on the table as just refreshed.
   */
  private void requireReadable(WrittenFiles files, FloeCommittable committable) throws IOException {
    List<String> misfits = WrittenSchemas.misfits(files.schemas(), table.schema());
    if (!misfits.isEmpty()) {
      throw new IllegalStateException("checkpoint " + committable.checkpointId() + " of job " + committable.jobId()
          + " cannot be committed to " + table.name() + ": its files were written with columns the table's schema now"
          + " reads differently (" + String.join("; ", misfits) + "; was the table replaced?), and committing them would"
          + " leave the table unreadable. Restore the job from a checkpoint or savepoint taken before the change, or"
          + " start it without this state and read its records again from the source's offsets before it");
    }
  }

  private static boolean sameRun(FloeCommittable a, FloeCommittable b) {
    return a.jobId().equals(b.jobId()) && a.operatorId().equals(b.operatorId()) && Objects.equals(a.runId(), b.runId());
  }

  /** Commits {@code files} under {@code committable}'s job, operator, run and checkpoint. */
  private void commit(WriteResult files, FloeCommittable committable, boolean rowDelta) {
    long checkpointId = committable.checkpointId();
    Map<String, String> summary = new HashMap<>();
    summary.put(FlinkCheckpoints.JOB_ID, committable.jobId());
    summary.put(FlinkCheckpoints.OPERATOR_ID, committable.operatorId());
    summary.put(FlinkCheckpoints.MAX_COMMITTED_CHECKPOINT_ID, Long.toString(checkpointId));
    if (committable.runId() != null) {
      summary.put(FlinkCheckpoints.RUN_ID, committable.runId());
    }
    long start = System.nanoTime();
    Map<String, String> committed = FlinkCheckpoints.committedProperty(committable);
    if (overwrite) {
      Commits.replacePartitions(table, files, summary, committed);
    } else if (rowDelta) {
      Commits.rowDelta(table, files, summary, committed);
    } else {
      Commits.append(table, files, summary, committed);
    }
    lastCommitMillis = (System.nanoTime() - start) / 1_000_000;
    commits.inc();
    committedFiles.inc(files.dataFiles().length + files.deleteFiles().length);
    LOG.info(
        "committed checkpoint {} of job {} to {}: {} data files, {} delete files in {} ms",
        checkpointId, committable.jobId(), table.name(), files.dataFiles().length, files.deleteFiles().length, lastCommitMillis);
  }

  @Override
  public void close() throws Exception {
    IcebergTableRef.close(catalog);
  }
}
