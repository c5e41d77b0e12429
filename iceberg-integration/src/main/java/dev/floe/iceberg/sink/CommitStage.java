package dev.floe.iceberg.sink;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.io.WriteResult;
import org.apache.kafka.common.TopicPartition;

/**
 * Commits sealed cycles on a thread of its own, so that the consumer goes on fetching (and the
 * decode thread decoding) while a cycle's last files are finished and committed. One cycle is
 * committed at a time, in the order sealed, and at most one waits: {@link #submit} first waits for
 * the cycle before. Only the consumer thread calls it.
 *
 * <p>A cycle's tables commit only when all of its files are complete and every dead letter sent
 * so far is acknowledged, as in a synchronous commit; what a commit fails with (a write failure,
 * fencing, a catalog that keeps refusing) is thrown to the consumer thread by the next {@link
 * #poll}, {@link #await} or {@link #submit}, and nothing after it is committed.
 */
final class CommitStage implements AutoCloseable {
  private final TableCommitter committer;
  private final DeadLetters deadLetters;
  private final ExecutorService thread;
  private Future<Committed> pending;

  /** One table's part of a sealed cycle: its files (being completed) and the offsets they cover. */
  record TableCut(TableChannel channel, CompletableFuture<WriteResult> files, Map<TopicPartition, Long> offsets) {}

  /**
   * A cycle cut on the consumer thread: the positions it covers, its records, and when it began
   * to be committed.
   */
  record Sealed(List<TableCut> tables, Map<TopicPartition, Long> positions, long records, long sealedNanos) {}

  /** A cycle whose tables all committed. */
  record Committed(Map<TopicPartition, Long> positions, long records, long files, long bytes, long millis) {}

  CommitStage(TableCommitter committer, DeadLetters deadLetters, String group) {
    this.committer = committer;
    this.deadLetters = deadLetters;
    this.thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "floe-commit-" + group);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Starts committing {@code cycle}, after waiting for the cycle before it (returned, or null if
   * there was none).
   */
  Committed submit(Sealed cycle) {
    Committed before = await();
    pending = thread.submit(() -> commit(cycle));
    return before;
  }

  /** The cycle in progress if it has committed by now (then it is no longer pending), else null. */
  Committed poll() {
    return pending != null && pending.isDone() ? await() : null;
  }

  /** Waits for the cycle in progress; null if there is none. */
  Committed await() {
    Future<Committed> waiting = pending;
    if (waiting == null) {
      return null;
    }
    pending = null;
    try {
      return waiting.get();
    } catch (ExecutionException e) {
      throw SinkException.wrap(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SinkException("interrupted while waiting for a commit", e);
    }
  }

  private Committed commit(Sealed cycle) {
    Map<TableCut, WriteResult> results = completed(cycle.tables());
    if (deadLetters != null) {
      deadLetters.flush(); // before any offset moves past a dead-lettered record
    }
    long files = 0;
    long bytes = 0;
    for (Map.Entry<TableCut, WriteResult> e : results.entrySet()) {
      TableChannel channel = e.getKey().channel();
      WriteResult result = e.getValue();
      if (result.dataFiles().length == 0 && result.deleteFiles().length == 0) {
        continue;
      }
      Map<TopicPartition, Long> offsets = e.getKey().offsets();
      committer.commit(channel.table(), result, offsets, channel.stored());
      channel.stored().putAll(offsets);
      files += result.dataFiles().length;
      for (DataFile f : result.dataFiles()) {
        bytes += f.fileSizeInBytes();
      }
    }
    long millis = (System.nanoTime() - cycle.sealedNanos()) / 1_000_000;
    return new Committed(cycle.positions(), cycle.records(), files, bytes, millis);
  }

  /**
   * Every table's completed files; if any table failed, the others' files are deleted (none of
   * the cycle is committed) and its failure is thrown.
   */
  private static Map<TableCut, WriteResult> completed(List<TableCut> tables) {
    Map<TableCut, WriteResult> results = new LinkedHashMap<>();
    RuntimeException failure = null;
    for (TableCut cut : tables) {
      try {
        results.put(cut, cut.files().join());
      } catch (CompletionException e) {
        if (failure == null) {
          failure = SinkException.wrap(e.getCause());
        }
      }
    }
    if (failure != null) {
      results.forEach((cut, result) -> TableCommitter.deleteFiles(cut.channel().table(), result));
      throw failure;
    }
    return results;
  }

  /** Lets a commit in progress land (it holds complete files), then stops the thread. */
  @Override
  public void close() {
    thread.shutdown();
    try {
      thread.awaitTermination(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
