package dev.floe.kafka.sink;

import dev.floe.iceberg.Commits;
import dev.floe.kafka.sink.SnapshotOffsets.Position;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CleanableFailure;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.WriteResult;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one cycle's files to one table together with the Kafka offsets they cover, exactly
 * once: the offsets and a fresh commit id go into the snapshot summary (and the offsets into the
 * table property, {@link FencingTableOperations}); the commit is refused if the table's offsets for
 * these partitions moved since this sink last saw them (fencing); catalog conflicts are retried.
 *
 * <p>An attempt whose outcome is unknown (a catalog that timed out while committing) may land at
 * any later moment, so from then on every attempt first checks the table for this commit's id,
 * and the files are never deleted: a snapshot may reference them. Otherwise a commit that is
 * refused for good deletes its files, which nothing references.
 */
final class TableCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(TableCommitter.class);
  private static final int ATTEMPTS = 5;

  private final String group;
  private final long backoffMillis;

  TableCommitter(String group) {
    this(group, 100);
  }

  /** @param backoffMillis half the first retry's wait; each next one doubles it */
  TableCommitter(String group, long backoffMillis) {
    this.group = group;
    this.backoffMillis = backoffMillis;
  }

  /**
   * Commits {@code result} with {@code offsets} (next offset per partition); {@code expected} holds
   * the table's positions for those partitions as this sink last saw them.
   *
   * @throws FencedException if another writer moved the offsets
   * @throws SinkException if the catalog kept refusing, or on interrupt
   */
  void commit(
      Table table,
      WriteResult result,
      Map<TopicPartition, Position> offsets,
      Map<TopicPartition, Position> expected) {
    String commitId = UUID.randomUUID().toString();
    Map<String, String> summary = new HashMap<>();
    summary.put(SnapshotOffsets.key(group), SnapshotOffsets.toJson(offsets));
    summary.put(SnapshotOffsets.COMMIT_ID, commitId);
    Map<TopicPartition, Position> expectedHere = new HashMap<>(expected);
    expectedHere.keySet().retainAll(offsets.keySet());
    TableOperations ops = ((HasTableOperations) table).operations();
    FencingTableOperations fencing = new FencingTableOperations(ops, group, commitId, offsets, expectedHere);
    Table fenced = new BaseTable(fencing, table.name());
    boolean outcomeUnknown = false;
    for (int attempt = 1; ; attempt++) {
      try {
        if (result.deleteFiles().length > 0) {
          Commits.rowDelta(fenced, result, summary);
        } else {
          Commits.append(fenced, result, summary);
        }
        return;
      } catch (FencingTableOperations.AlreadyCommittedException landed) {
        LOG.info("commit {} to {} had landed after all (its outcome was unknown)", commitId, table.name());
        return;
      } catch (FencedException e) {
        deleteUnlessReferenced(table, result, outcomeUnknown);
        throw e;
      } catch (CommitStateUnknownException e) {
        outcomeUnknown = true;
        fencing.lookForEarlierAttempt();
        if (SnapshotOffsets.containsCommit(ops.refresh(), commitId)) {
          return;
        }
        backoffOrGiveUp(attempt, table, result, true, e);
      } catch (CommitFailedException e) {
        ops.refresh();
        backoffOrGiveUp(attempt, table, result, outcomeUnknown, e);
      } catch (RuntimeException e) {
        // Iceberg's rule: only a cleanable failure says for sure that nothing was committed.
        deleteUnlessReferenced(table, result, outcomeUnknown || !(e instanceof CleanableFailure));
        throw e;
      }
    }
  }

  private void backoffOrGiveUp(
      int attempt, Table table, WriteResult result, boolean outcomeUnknown, RuntimeException e) {
    if (attempt >= ATTEMPTS) {
      deleteUnlessReferenced(table, result, outcomeUnknown);
      throw new SinkException("could not commit to " + table.name() + " after " + attempt + " attempts"
          + (outcomeUnknown ? " (an attempt's outcome was unknown: its files are kept)" : ""), e);
    }
    LOG.warn("commit to {} failed (attempt {} of {}), retrying: {}", table.name(), attempt, ATTEMPTS, e.getMessage());
    try {
      Thread.sleep(backoffMillis << attempt);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      if (!outcomeUnknown) {
        deleteFiles(table, result);
      }
      throw new SinkException("interrupted while retrying a commit to " + table.name(), interrupted);
    }
  }

  private static void deleteUnlessReferenced(Table table, WriteResult result, boolean mayHaveLanded) {
    if (mayHaveLanded) {
      LOG.warn("keeping the files of a failed commit to {}: it may have landed, so a snapshot may reference them",
          table.name());
    } else {
      deleteFiles(table, result);
    }
  }

  /** Deletes files that no snapshot references and never will. */
  static void deleteFiles(Table table, WriteResult result) {
    for (ContentFile<?> f : result.dataFiles()) {
      deleteQuietly(table, f);
    }
    for (ContentFile<?> f : result.deleteFiles()) {
      deleteQuietly(table, f);
    }
  }

  private static void deleteQuietly(Table table, ContentFile<?> file) {
    try {
      table.io().deleteFile(file.location());
    } catch (RuntimeException e) {
      LOG.warn("could not delete uncommitted file {}: {}", file.location(), e.getMessage());
    }
  }
}
