package dev.floe.kafka.sink;

import dev.floe.iceberg.CycleFiles;
import dev.floe.iceberg.SnapshotExpiry;
import dev.floe.kafka.sink.SnapshotOffsets.Position;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.io.WriteResult;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits sealed cycles on a thread of its own, so that the consumer goes on fetching (and the
 * decode thread decoding) while a cycle's last files are finished and committed. One cycle is
 * committed at a time, in the order sealed, and at most one waits: {@link #submit} first waits for
 * the cycle before. Only the consumer thread calls it.
 *
 * <p>A cycle's tables commit only when all of its files are complete and every dead letter sent
 * so far is acknowledged, as in a synchronous commit. A table whose commit is fenced ends the
 * cycle there: the tables after it are not committed, and the result says so ({@link
 * Committed#fence()}) so that the consumer thread resumes from the tables. Any other failure (a
 * write failure, a catalog that keeps refusing) is thrown to the consumer thread by the next
 * {@link #poll}, {@link #await} or {@link #submit}. Files that were never committed are deleted,
 * except those of a commit whose outcome was unknown ({@link TableCommitter}).
 */
final class CommitStage implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CommitStage.class);

  private final TableCommitter committer;
  private final DeadLetters deadLetters;
  private final SnapshotExpiry expiry;
  private final TopicIds topicIds;
  private final BackgroundJob<Committed> job;
  /** Tables committed without files when idle ({@code idle.commit.cycles}; commit thread only). */
  private final IdleCommits<TableChannel> idleCommits;
  /** The last topic-id lookup failed (read and written by one commit at a time). */
  private boolean idLookupFailing;

  /** One table's part of a sealed cycle: its files (being completed) and the offsets they cover. */
  record TableCut(TableChannel channel, CompletableFuture<CycleFiles> files, Map<TopicPartition, Position> offsets) {}

  /**
   * A cycle cut on the consumer thread: the positions it covers, its records, when it began to be
   * committed, and whether it is the last before the sink stops or gives partitions away.
   */
  record Sealed(List<TableCut> tables, Map<TopicPartition, Long> positions, long records, long sealedNanos,
      boolean last) {}

  /**
   * A cycle that ended: every table committed ({@code tables} of them had something to commit),
   * or, if {@code fence} is not null, a table's commit was fenced (the tables before it committed,
   * the rest did not).
   */
  record Committed(Map<TopicPartition, Long> positions, long records, int tables, long files, long bytes, long millis,
      FencedException fence) {
    static Committed fenced(FencedException fence) {
      return new Committed(Map.of(), 0, 0, 0, 0, 0, fence);
    }
  }

  /**
   * @param expiry expires each table's old snapshots after a cycle's commits, when due
   * @param idleCommitCycles commit a table without files after this many cycles without files in
   *     which its partitions moved on, and at the last cycle; 0: never
   */
  CommitStage(TableCommitter committer, DeadLetters deadLetters, SnapshotExpiry expiry, TopicIds topicIds, String group,
      int idleCommitCycles) {
    this.committer = committer;
    this.deadLetters = deadLetters;
    this.expiry = expiry;
    this.topicIds = topicIds;
    this.idleCommits = new IdleCommits<>(idleCommitCycles);
    this.job = new BackgroundJob<>("floe-commit-" + group, SinkException::wrap);
  }

  /**
   * Starts committing {@code cycle}, after waiting for the cycle before it (returned, or null if
   * there was none). If the cycle before was fenced, {@code cycle} is dropped instead: it was cut
   * from positions the consumer no longer trusts, and its files are deleted once complete; so it
   * is when the cycle before failed, whose failure is then thrown.
   */
  Committed submit(Sealed cycle) {
    Committed before;
    try {
      before = await();
    } catch (RuntimeException | Error e) {
      drop(cycle); // never committed: a restart, or the sink reading it again, writes it anew
      throw e;
    }
    if (before != null && before.fence() != null) {
      drop(cycle);
      return before;
    }
    job.start(() -> commit(cycle));
    return before;
  }

  /** The cycle in progress if it has committed by now (then it is no longer pending), else null. */
  Committed poll() {
    return job.poll();
  }

  /** Deletes {@code cycle}'s files once they are complete. */
  private static void drop(Sealed cycle) {
    for (TableCut cut : cycle.tables()) {
      cut.files().thenAccept(written -> TableCommitter.deleteFiles(cut.channel().table(), written.files()));
    }
  }

  /** Whether a cycle is being committed, or has ended and its outcome is not taken yet. */
  boolean busy() {
    return job.busy();
  }

  /** Waits for the cycle in progress; null if there is none. */
  Committed await() {
    return job.await();
  }

  private Committed commit(Sealed cycle) {
    List<Map.Entry<TableCut, CycleFiles>> results = completed(cycle.tables());
    if (deadLetters != null) {
      try {
        deadLetters.flush(); // before any offset moves past a dead-lettered record
      } catch (RuntimeException e) {
        deleteAll(results, 0);
        throw e;
      }
    }
    try {
      requireTopicsNotRecreated(cycle);
    } catch (RuntimeException e) {
      deleteAll(results, 0);
      throw e;
    }
    int tables = 0;
    long files = 0;
    long bytes = 0;
    for (int i = 0; i < results.size(); i++) {
      TableCut cut = results.get(i).getKey();
      CycleFiles written = results.get(i).getValue();
      WriteResult result = written.files();
      HeldOffsets held = cut.channel().held();
      if (result.dataFiles().length == 0 && result.deleteFiles().length == 0 && !replacesStaleOffsets(cut, held)
          && !idleLongEnough(cut, held, cycle.last())) {
        continue;
      }
      try {
        committer.commit(
            cut.channel().table(), result, written.schemas(), cut.offsets(), held.stored(cut.offsets().keySet()));
      } catch (FencedException fence) {
        LOG.warn("commit to {} fenced: {}", cut.channel().id(), fence.getMessage());
        deleteAll(results, i + 1);
        return Committed.fenced(fence);
      } catch (RuntimeException | Error e) {
        deleteAll(results, i + 1); // the committer deleted this table's files if that was safe
        throw e;
      }
      held.committed(cut.offsets());
      idleCommits.reset(cut.channel());
      tables++;
      files += result.dataFiles().length;
      for (DataFile f : result.dataFiles()) {
        bytes += f.fileSizeInBytes();
      }
    }
    long millis = (System.nanoTime() - cycle.sealedNanos()) / 1_000_000;
    for (TableCut cut : cycle.tables()) {
      expiry.maybeExpire(cut.channel().table());
    }
    return new Committed(cycle.positions(), cycle.records(), tables, files, bytes, millis, null);
  }

  /**
   * Stops the sink if a topic of the cycle was deleted and created again since its partitions
   * were resumed: the consumer may have gone on reading the new topic from the old topic's
   * positions without a rebalance, and storing them would skip the new topic's records, or write
   * them twice after a restart. Nothing of the cycle is committed; a restart reads the new topic
   * from its beginning (its id differs from the stored one). Records of the old topic read but
   * not yet committed are lost with the topic. A lookup that fails is logged and not checked.
   */
  private void requireTopicsNotRecreated(Sealed cycle) {
    Set<String> topics = new TreeSet<>();
    cycle.tables().forEach(cut -> cut.offsets().keySet().forEach(tp -> topics.add(tp.topic())));
    Map<String, String> current;
    try {
      current = topicIds.current(topics);
    } catch (SinkException e) {
      if (!idLookupFailing) { // once, not at every commit: e.g. no Describe permission on the topics
        LOG.warn("could not check that topics {} were not created again: {}; commits go on unchecked until a lookup"
            + " succeeds", topics, e.getMessage());
      }
      idLookupFailing = true;
      return;
    }
    if (idLookupFailing) {
      LOG.info("topic ids can be read again: commits check them");
      idLookupFailing = false;
    }
    for (TableCut cut : cycle.tables()) {
      cut.offsets().forEach((tp, position) -> {
        String now = current.get(tp.topic());
        if (position.topicId() != null && now != null && !position.sameTopic(now)) {
          throw new SinkException("topic " + tp.topic() + " was deleted and created again while this sink read it"
              + " (id " + position.topicId() + ", now " + now + "): the sink stops without committing the cycle;"
              + " started again, it reads the new topic from its beginning (records of the old topic that were"
              + " not committed are gone with it)", null);
        }
      });
    }
  }

  /**
   * Whether the cut is committed even without files: a partition's offset moves back (its offsets
   * were reused, a truncated log; never silently), or the table stores an offset from before a
   * reuse or of a recreated topic and takes a current one. A table that kept its old offset would
   * skip the new records below it after a resume; or, quiet in route-field mode, have the reuse
   * found again at every resume, and every table's floor dropped to it.
   */
  private static boolean replacesStaleOffsets(TableCut cut, HeldOffsets held) {
    boolean replaces = false;
    for (Map.Entry<TopicPartition, Position> e : cut.offsets().entrySet()) {
      Position stored = held.stored(e.getKey());
      Position next = e.getValue();
      if (stored == null) {
        continue;
      }
      Long floor = held.floor(e.getKey());
      if (!stored.sameTopic(next.topicId())) {
        LOG.info("table {}: the offset stored for {} of the topic before it was recreated is replaced by {}",
            cut.channel().id(), e.getKey(), next.next());
        replaces = true;
      } else if (next.next() < stored.next()) {
        LOG.warn("table {}: the offset stored for {} moves back from {} to {} (its offsets were reused)",
            cut.channel().id(), e.getKey(), stored.next(), next.next());
        replaces = true;
      } else if (floor != null && floor < stored.next()) {
        LOG.warn("table {}: the offset {} stored for {} before its offsets were reused is replaced by {}",
            cut.channel().id(), stored.next(), e.getKey(), next.next());
        replaces = true;
      }
    }
    return replaces;
  }

  /**
   * Whether a cut without files is committed to store the offsets reached: its table got no files
   * for {@code idle.commit.cycles} cycles in a row (or this is the sink's last cycle) while a
   * partition moved past the offset it stores. Left alone, the table would hold its partitions
   * back to its last data: under a route field, every restart and rebalance would read all the
   * records since then again, skipping them for every table.
   */
  private boolean idleLongEnough(TableCut cut, HeldOffsets held, boolean last) {
    List<TopicPartition> behind = new ArrayList<>();
    cut.offsets().forEach((tp, next) -> {
      Position stored = held.stored(tp);
      if (stored != null && next.next() > stored.next()) {
        behind.add(tp);
      }
    });
    int cycles = idleCommits.due(cut.channel(), !behind.isEmpty(), last);
    if (cycles == 0) {
      return false;
    }
    LOG.info("table {} got no files for {} cycles{}: storing the offsets reached for {}, without files",
        cut.channel().id(), cycles, last ? " (the sink's last)" : "", behind);
    return true;
  }

  /** Deletes the files of the tables from {@code from} on: none of them was committed. */
  private static void deleteAll(List<Map.Entry<TableCut, CycleFiles>> results, int from) {
    for (Map.Entry<TableCut, CycleFiles> e : results.subList(from, results.size())) {
      TableCommitter.deleteFiles(e.getKey().channel().table(), e.getValue().files());
    }
  }

  /**
   * Every table's completed files; if any table failed, the others' files are deleted (none of
   * the cycle is committed) and its failure is thrown.
   */
  private static List<Map.Entry<TableCut, CycleFiles>> completed(List<TableCut> tables) {
    List<Map.Entry<TableCut, CycleFiles>> results = new ArrayList<>();
    RuntimeException failure = null;
    for (TableCut cut : tables) {
      try {
        results.add(Map.entry(cut, cut.files().join()));
      } catch (CompletionException e) {
        if (failure == null) {
          failure = SinkException.wrap(e.getCause());
        }
      }
    }
    if (failure != null) {
      deleteAll(results, 0);
      throw failure;
    }
    return results;
  }

  /** Lets a commit in progress land (it holds complete files), then stops the thread. */
  @Override
  public void close() {
    job.close();
  }
}
