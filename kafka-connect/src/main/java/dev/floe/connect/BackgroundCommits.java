package dev.floe.connect;

import dev.floe.iceberg.CycleFiles;
import dev.floe.iceberg.SnapshotExpiry;
import dev.floe.kafka.sink.BackgroundJob;
import dev.floe.kafka.sink.FencedException;
import dev.floe.kafka.sink.SnapshotOffsets.Position;
import dev.floe.kafka.sink.TableCommitter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.WriteResult;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits a task's sealed cycles on a thread of its own, as the Kafka sink does, so that Connect's
 * task thread goes on polling and putting while a cycle's last files are closed and committed.
 * One cycle is committed at a time: the task {@linkplain #await awaits} the one before (and applies
 * its outcome) before it {@linkplain #submit submits} the next, so every commit expects the offsets
 * the one before left in the tables.
 *
 * <p>A cycle's tables commit only when all its files are complete and every bad record reported
 * so far is in the dead-letter queue. A fenced table ends the cycle there: the tables after it are
 * not committed (their files are deleted) and the {@link Outcome} says so; the task then drops its
 * cycle in progress and resumes from the tables. Any other failure is thrown to the task by {@link
 * #poll} or {@link #await} as a {@link CycleFailed}, which names the cycle (where to read it again),
 * after the cycle's uncommitted files are deleted.
 *
 * <p>Only the task's threads call it, under the task's cycle lock.
 */
final class BackgroundCommits implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BackgroundCommits.class);

  private final TableCommitter committer;
  private final BadRecords badRecords;
  private final SnapshotExpiry expiry;
  private final BackgroundJob<Outcome> job;

  /**
   * One table's part of a sealed cycle: its files (being completed on its writer thread), the
   * offsets the table must hold for the commit to go ahead (fencing), and the offsets it is
   * committed with: the cycle's, or what the table holds where that is more.
   */
  record TableCut(String name, Table table, CompletableFuture<CycleFiles> files, Map<TopicPartition, Position> expected,
      Map<TopicPartition, Position> offsets) {}

  /**
   * A cycle cut on the task thread.
   *
   * @param offsets where the cycle ends, which {@code preCommit} reports once it is committed (a
   *     table is committed with these, or with what it holds where that is more)
   * @param first each partition's first offset in the cycle: where to read again if it is dropped
   */
  record Sealed(
      List<TableCut> tables,
      Map<TopicPartition, Position> offsets,
      Map<TopicPartition, Long> first,
      long records,
      long sealedNanos) {}

  /**
   * How a cycle ended: its first {@code committedTables} tables are committed; all of them unless
   * {@code fence} is set (the next table's commit was fenced).
   */
  record Outcome(Sealed cycle, int committedTables, FencedException fence, long files, long bytes, long millis) {}

  /**
   * A cycle's commit failed (with the message of its cause): the tables before the failing one may
   * hold it, the rest do not. {@link #cycle} says where to read it again if it is ridden out.
   */
  static final class CycleFailed extends ConnectException {
    private final transient Sealed cycle;

    CycleFailed(Sealed cycle, RuntimeException cause) {
      super(cause.getMessage(), cause);
      this.cycle = cycle;
    }

    Sealed cycle() {
      return cycle;
    }
  }

  /** @param expiry expires each table's old snapshots after a cycle's commits, when due */
  BackgroundCommits(TableCommitter committer, BadRecords badRecords, SnapshotExpiry expiry, String threadName) {
    this.committer = committer;
    this.badRecords = badRecords;
    this.expiry = expiry;
    this.job = new BackgroundJob<>(threadName,
        cause -> cause instanceof ConnectException c ? c : new ConnectException("committing a cycle failed", cause));
  }

  /**
   * Starts committing {@code cycle}; the one before must have been awaited. {@code ended} runs on
   * the commit thread when the commit has ended, whatever its outcome.
   */
  void submit(Sealed cycle, Runnable ended) {
    job.start(() -> {
      try {
        return commit(cycle);
      } catch (RuntimeException e) {
        throw new CycleFailed(cycle, e);
      } finally {
        ended.run();
      }
    });
  }

  /** Whether a cycle is being committed (or committed and not yet taken). */
  boolean busy() {
    return job.busy();
  }

  /** The cycle in progress if its commit has ended (it is then taken), else null. */
  Outcome poll() {
    return job.poll();
  }

  /** Waits for the cycle in progress and takes its outcome; null if there is none. */
  Outcome await() {
    return job.await();
  }

  private Outcome commit(Sealed cycle) {
    List<CycleFiles> results = completed(cycle.tables());
    try {
      badRecords.awaitReported(); // before any offset moves past a dead-lettered record
    } catch (RuntimeException e) {
      deleteFrom(cycle.tables(), results, 0);
      throw e;
    }
    long files = 0;
    long bytes = 0;
    for (int i = 0; i < results.size(); i++) {
      TableCut cut = cycle.tables().get(i);
      WriteResult result = results.get(i).files();
      try {
        committer.commit(cut.table(), result, results.get(i).schemas(), cut.offsets(), cut.expected());
      } catch (FencedException fence) {
        LOG.warn("commit to {} fenced, resuming from the tables: {}", cut.name(), fence.getMessage());
        deleteFrom(cycle.tables(), results, i + 1);
        return new Outcome(cycle, i, fence, files, bytes, millisSince(cycle));
      } catch (RuntimeException e) {
        deleteFrom(cycle.tables(), results, i + 1); // the committer deleted this table's files if that was safe
        throw new ConnectException("committing to table " + cut.name() + " failed", e);
      }
      files += result.dataFiles().length + result.deleteFiles().length;
      for (DataFile f : result.dataFiles()) {
        bytes += f.fileSizeInBytes();
      }
    }
    long millis = millisSince(cycle);
    for (TableCut cut : cycle.tables()) {
      expiry.maybeExpire(cut.table());
    }
    return new Outcome(cycle, results.size(), null, files, bytes, millis);
  }

  private static long millisSince(Sealed cycle) {
    return (System.nanoTime() - cycle.sealedNanos()) / 1_000_000;
  }

  /**
   * Every table's completed files, in the cycle's order; if a table failed, the others' files are
   * deleted (nothing of the cycle is committed) and its failure is thrown.
   */
  private static List<CycleFiles> completed(List<TableCut> tables) {
    List<CycleFiles> results = new ArrayList<>();
    RuntimeException failure = null;
    for (TableCut cut : tables) {
      try {
        results.add(cut.files().join());
      } catch (CompletionException e) {
        results.add(null);
        if (failure == null) {
          failure = e.getCause() instanceof ConnectException c ? c
              : new ConnectException("writing table " + cut.name() + " failed", e.getCause());
        }
      }
    }
    if (failure != null) {
      deleteFrom(tables, results, 0);
      throw failure;
    }
    return results;
  }

  /** Deletes the files of the tables from {@code from} on: none of them was committed. */
  private static void deleteFrom(List<TableCut> tables, List<CycleFiles> results, int from) {
    for (int i = from; i < results.size(); i++) {
      if (results.get(i) != null) {
        TableCommitter.deleteFiles(tables.get(i).table(), results.get(i).files());
      }
    }
  }

  /** Lets a commit in progress land (its files are complete), then stops the thread. */
  @Override
  public void close() {
    job.close();
  }
}
