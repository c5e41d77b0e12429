package dev.floe.flink.sink;

import dev.floe.flink.IcebergTableRef;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.flink.sink.FlinkManifestUtil;
import org.apache.iceberg.flink.sink.ManifestOutputFileFactory;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.WriteResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs once (parallelism 1) between the writers and the committer: gathers every writer's files of
 * a checkpoint into one {@link FloeCommittable}, so each checkpoint is one commit. Writers send
 * their files ahead of the checkpoint's barrier; with aligned checkpoints all of them are here when
 * this operator's own barrier arrives. What it emits is the committer's state; its own is the last
 * checkpoint.
 *
 * <p>Files keep the checkpoint they were written for. A checkpoint aborted after the writers' part
 * of it and before this operator's leaves its files here; they go out at the next barrier as a
 * committable of their own checkpoint, ahead of that barrier's. Merged into the later checkpoint,
 * they would share its commit, and its equality deletes would not reach their rows (a key written
 * in the aborted checkpoint and updated in the next would keep both rows).
 *
 * <p>A checkpoint's files travel in its committable, in Flink's state, until their commit. When
 * their metadata passes {@code manifestBytes}, they are written ahead into Iceberg manifests, as
 * Iceberg's sink always does, and the committable keeps the manifests: Flink's in-memory
 * checkpoint storage takes 5 MiB in all. If the manifests cannot be written (the catalog does not
 * answer), the files stay inline.
 */
final class CheckpointAggregator extends AbstractStreamOperator<CommittableMessage<FloeCommittable>>
    implements OneInputStreamOperator<CommittableMessage<WrittenFiles>, CommittableMessage<FloeCommittable>> {
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointAggregator.class);
  /** Writers' files by the checkpoint they were written for, until a barrier of it or a later one. */
  private final NavigableMap<Long, List<WrittenFiles>> results = new TreeMap<>();
  private long lastCheckpointId = 0;
  /**
   * The last checkpoint this operator took part in. Kept as state because a restored operator
   * without state is not told which checkpoint it restored from, and end of input numbers the
   * final files after it: numbered 1 instead, they would look committed already and be dropped.
   */
  private ListState<Long> lastCheckpoint;
  /**
   * This run of the job: a new id every time the job is built (each submission, with state or
   * without; drawn when the operator is made, it travels with the job graph, so the failovers of one
   * submission share it, and their checkpoint ids keep growing). Every committable carries it into
   * its snapshot summary, so the committer tells this run's commits from an earlier run's under the
   * same job id ({@link FlinkCheckpoints}). Kept in state, it would name two runs restored from one
   * savepoint (a rollback), whose checkpoint ids repeat: the second run's checkpoints would look
   * committed by the first and be dropped. Committables restored into the committer keep the id of
   * the run that made them.
   */
  private final String runId = UUID.randomUUID().toString();
  /** The table, for manifests written ahead; null: files always travel inline. */
  private final IcebergTableRef tableRef;
  /** A checkpoint's files whose metadata passes this go into manifests written ahead. */
  private final long manifestBytes;
  private transient Catalog catalog;
  private transient Table table;
  private transient ManifestOutputFileFactory manifests;

  /**
   * @param tableRef the table, for manifests written ahead (null: never)
   * @param manifestBytes the size of a checkpoint's files' metadata past which they are
   */
  CheckpointAggregator(IcebergTableRef tableRef, long manifestBytes) {
    this.tableRef = tableRef;
    this.manifestBytes = manifestBytes;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    lastCheckpoint =
        context.getOperatorStateStore().getListState(new ListStateDescriptor<>("floe-last-checkpoint", Long.class));
    for (Long id : lastCheckpoint.get()) {
      lastCheckpointId = Math.max(lastCheckpointId, id);
    }
    context.getRestoredCheckpointId().ifPresent(id -> lastCheckpointId = Math.max(lastCheckpointId, id));
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    lastCheckpoint.update(List.of(context.getCheckpointId()));
  }

  @Override
  public void processElement(StreamRecord<CommittableMessage<WrittenFiles>> element) {
    if (element.getValue() instanceof CommittableWithLineage<WrittenFiles> files) {
      results.computeIfAbsent(files.getCheckpointIdOrEOI(), id -> new ArrayList<>()).add(files.getCommittable());
    }
  }

  /** Emits the files of this checkpoint, after those of earlier checkpoints aborted before their barrier got here. */
  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) {
    if (checkpointId == lastCheckpointId) {
      return; // finish() emitted it already for the final checkpoint
    }
    lastCheckpointId = checkpointId;
    NavigableMap<Long, List<WrittenFiles>> due = results.headMap(checkpointId, true);
    due.computeIfAbsent(checkpointId, id -> List.of()); // one commit per checkpoint, files or not
    due.forEach(this::emit);
    due.clear();
  }

  private void emit(long checkpointId, List<WrittenFiles> files) {
    String jobId = getRuntimeContext().getJobInfo().getJobId().toString();
    byte[] written = WrittenFiles.concat(files).bytes();
    if (tableRef != null && written.length > manifestBytes) {
      written = inManifests(written, jobId, checkpointId);
    }
    FloeCommittable committable = new FloeCommittable(written, jobId, getOperatorID().toString(), runId, checkpointId);
    output.collect(new StreamRecord<>(new CommittableSummary<>(0, 1, checkpointId, 1, 0)));
    output.collect(new StreamRecord<>(new CommittableWithLineage<>(committable, checkpointId, 0)));
  }

  /** The files in manifests written ahead; as they are, if that fails (logged). */
  private byte[] inManifests(byte[] written, String jobId, long checkpointId) {
    List<String> created = new ArrayList<>(); // deleted if a later one fails: nothing would name them
    try {
      if (table == null) {
        Catalog opened = tableRef.openCatalog();
        try {
          table = opened.loadTable(tableRef.identifier());
        } catch (RuntimeException e) {
          IcebergTableRef.close(opened); // not kept: the next checkpoint tries again (helper-57: one leaked per checkpoint)
          throw e;
        }
        catalog = opened;
        // Named <job>-<operator>-<run>-<instance>-<subtask>-<attempt>-<checkpoint>-<n>.avro: a
        // restarted attempt writing an aborted checkpoint's files again, a run restored from the
        // same savepoint under a fixed job id, or an attempt numbered from 0 again after a
        // JobManager failover does not overwrite another's manifests: the instance id is drawn
        // here, once per operator instance.
        manifests = FlinkManifestUtil.createOutputFileFactory(() -> table, table.properties(), jobId,
            getOperatorID() + "-" + runId + "-" + UUID.randomUUID(), 0,
            getRuntimeContext().getTaskInfo().getAttemptNumber());
      } else {
        table.refresh();
      }
      WrittenFiles inline = WrittenFiles.fromBytes(written);
      WriteResult files = inline.toWriteResult(table.specs(), table.io());
      byte[] spilled = WrittenFiles.inManifests(files, inline.schemas(), table.specs(), TableUtil.formatVersion(table),
          () -> {
            OutputFile manifest = manifests.create(checkpointId);
            created.add(manifest.location());
            return manifest;
          }).bytes();
      LOG.info("checkpoint {}: {} data and {} delete files ({} bytes of metadata) written ahead into manifests",
          checkpointId, files.dataFiles().length, files.deleteFiles().length, written.length);
      return spilled;
    } catch (Exception | LinkageError e) { // the latter: an Iceberg on the classpath whose FlinkManifestUtil differs
      LOG.warn("checkpoint {}: could not write its files ({} bytes of metadata) into manifests; they stay in the "
          + "checkpoint's state: {}", checkpointId, written.length, e.toString());
      for (String manifest : created) {
        try {
          table.io().deleteFile(manifest);
        } catch (RuntimeException notDeleted) {
          LOG.warn("checkpoint {}: could not delete the manifest {} written before the failure: {}", checkpointId,
              manifest, notDeleted.toString());
        }
      }
      return written;
    }
  }

  @Override
  public void close() throws Exception {
    try {
      super.close();
    } finally {
      if (catalog != null) {
        IcebergTableRef.close(catalog);
      }
    }
  }

  /**
   * End of input: the files written since the last checkpoint go with the final one, which the
   * writers number after the last checkpoint they took part in (or as end of input). A checkpoint
   * aborted before its barrier got here still commits on its own, ahead of them.
   */
  @Override
  public void finish() throws Exception {
    List<WrittenFiles> endOfInput = results.remove(CommittableMessage.EOI);
    long finalCheckpointId = Math.max(lastCheckpointId + 1, results.isEmpty() ? 0 : results.lastKey());
    if (endOfInput != null) {
      results.computeIfAbsent(finalCheckpointId, id -> new ArrayList<>()).addAll(endOfInput);
    }
    prepareSnapshotPreBarrier(finalCheckpointId);
    super.finish();
  }
}
