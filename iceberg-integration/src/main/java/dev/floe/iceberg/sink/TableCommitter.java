package dev.floe.iceberg.sink;

import dev.floe.iceberg.Commits;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.WriteResult;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one cycle's files to one table together with the Kafka offsets they cover, exactly
 * once: the offsets and a fresh commit id go into the snapshot summary; the commit is refused if
 * the table's offsets for these partitions moved since this sink last saw them (fencing); catalog
 * conflicts are retried; a commit whose outcome is unknown is looked up by its id before retrying.
 */
final class TableCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(TableCommitter.class);
  private static final int ATTEMPTS = 5;

  private final String group;

  TableCommitter(String group) {
    this.group = group;
  }

  /**
   * Commits {@code result} with {@code offsets} (next offset per partition); {@code expected} holds
   * the table's offsets for those partitions as this sink last saw them.
   *
   * @throws FencedException if another writer moved the offsets (the files are deleted)
   */
  void commit(
      Table table,
      WriteResult result,
      Map<TopicPartition, Long> offsets,
      Map<TopicPartition, Long> expected) {
    String commitId = UUID.randomUUID().toString();
    Map<String, String> summary = new HashMap<>();
    summary.put(SnapshotOffsets.key(group), SnapshotOffsets.toJson(offsets));
    summary.put(SnapshotOffsets.COMMIT_ID, commitId);
    Map<TopicPartition, Long> expectedHere = new HashMap<>(expected);
    expectedHere.keySet().retainAll(offsets.keySet());
    TableOperations ops = ((HasTableOperations) table).operations();
    Table fenced =
        new BaseTable(new FencingTableOperations(ops, group, offsets.keySet(), expectedHere), table.name());
    for (int attempt = 1; ; attempt++) {
      try {
        if (result.deleteFiles().length > 0) {
          Commits.rowDelta(fenced, result, summary);
        } else {
          Commits.append(fenced, result, summary);
        }
        return;
      } catch (FencedException e) {
        deleteFiles(table, result);
        throw e;
      } catch (CommitStateUnknownException e) {
        if (SnapshotOffsets.containsCommit(ops.refresh(), commitId)) {
          return;
        }
        retryOrThrow(attempt, table, e);
      } catch (CommitFailedException e) {
        ops.refresh();
        retryOrThrow(attempt, table, e);
      }
    }
  }

  private static void retryOrThrow(int attempt, Table table, RuntimeException e) {
    if (attempt >= ATTEMPTS) {
      throw new SinkException("could not commit to " + table.name() + " after " + attempt + " attempts", e);
    }
    LOG.warn("commit to {} failed (attempt {} of {}), retrying: {}", table.name(), attempt, ATTEMPTS, e.getMessage());
    try {
      Thread.sleep(100L << attempt);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new SinkException("interrupted while retrying a commit", interrupted);
    }
  }

  /** Deletes files that will never be committed. */
  static void deleteFiles(Table table, WriteResult result) {
    for (ContentFile<?> f : result.dataFiles()) {
      table.io().deleteFile(f.location());
    }
    for (ContentFile<?> f : result.deleteFiles()) {
      table.io().deleteFile(f.location());
    }
  }
}
