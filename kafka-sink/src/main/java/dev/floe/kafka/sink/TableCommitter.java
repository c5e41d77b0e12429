package dev.floe.kafka.sink;

import static org.apache.iceberg.TableProperties.COMMIT_MAX_RETRY_WAIT_MS;
import static org.apache.iceberg.TableProperties.COMMIT_MAX_RETRY_WAIT_MS_DEFAULT;
import static org.apache.iceberg.TableProperties.COMMIT_MIN_RETRY_WAIT_MS;
import static org.apache.iceberg.TableProperties.COMMIT_MIN_RETRY_WAIT_MS_DEFAULT;
import static org.apache.iceberg.TableProperties.COMMIT_NUM_RETRIES;
import static org.apache.iceberg.TableProperties.COMMIT_NUM_RETRIES_DEFAULT;
import static org.apache.iceberg.TableProperties.COMMIT_TOTAL_RETRY_TIME_MS;
import static org.apache.iceberg.TableProperties.COMMIT_TOTAL_RETRY_TIME_MS_DEFAULT;

import dev.floe.iceberg.Commits;
import dev.floe.iceberg.WrittenSchemas;
import dev.floe.kafka.sink.SnapshotOffsets.Position;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CleanableFailure;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one cycle's files to one table together with the Kafka offsets they cover, exactly
 * once: the offsets and a fresh commit id go into the snapshot summary (and the offsets into the
 * table property, {@link FencingTableOperations}); the commit is refused if the table's offsets for
 * these partitions moved since this sink last saw them (fencing).
 *
 * <p>Catalog conflicts are retried by Iceberg itself, as the table's {@code commit.retry.*}
 * properties say. Writers that share a table (tasks of one connector, each on its own partitions)
 * conflict when their cycles end together, and a few of them can lose more often than {@code
 * commit.retry.num-retries} allows: a commit that Iceberg gives up on while other writers did
 * commit (the table moved meanwhile) is tried again, after a random wait (so that the losers
 * spread out), until {@code commit.retry.total-timeout-ms} has passed; every attempt checks the
 * fence again. A catalog that refuses while the table stands still is not retried further. An attempt whose outcome is unknown (a catalog that timed out while
 * committing) Iceberg leaves to the caller: it may land at any later moment, so from then on
 * every attempt first checks the table for this commit's id, up to {@code
 * commit.retry.num-retries} more attempts, and the files are never deleted: a snapshot may
 * reference them. Otherwise a commit refused for good (a cleanable failure) deletes its files,
 * which nothing references.
 *
 * <p>Committers in one process take turns on a table: each attempt holds the table's turn (one
 * lock per table location in the JVM), so the tasks of a connector on one worker, or several sinks
 * in one process, queue for a few milliseconds each instead of losing races and backing off for
 * Iceberg's retry waits. Committers in other processes still race and retry as above, and so does
 * a committer that waited {@value #TURN_WAIT_MS} ms for its turn: a turn held that long is a
 * commit that hangs, which must not hold up the others.
 *
 * <p>This is the sink's commit protocol, shared by every adapter that commits Kafka offsets to
 * Iceberg (the Kafka Connect connector): one committer per consumer group; the caller keeps the
 * positions it last saw in each table and passes them as {@code expected}.
 */
public final class TableCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(TableCommitter.class);

  /** Each table's turn in this process, by table location; a table's lock is kept for good. */
  private static final ConcurrentHashMap<String, ReentrantLock> TURNS = new ConcurrentHashMap<>();
  /** The longest wait for a table's turn before committing without it. */
  static final long TURN_WAIT_MS = 5_000;

  private final String group;
  private final boolean takeTurns;

  /** A committer storing offsets under {@code group}'s key ({@link SnapshotOffsets#key}). */
  public TableCommitter(String group) {
    this(group, true);
  }

  /** {@code takeTurns} false: races the process's other committers as if they ran elsewhere (tests). */
  TableCommitter(String group, boolean takeTurns) {
    this.group = group;
    this.takeTurns = takeTurns;
  }

  /**
   * Commits {@code result} with {@code offsets} (next offset per partition); {@code expected} holds
   * the table's positions for those partitions as this sink last saw them. Does not check which
   * schemas the files were written with (see the overload taking them).
   *
   * @throws FencedException if another writer moved the offsets, the table was upgraded to v3
   *     under position deletes, or the equality deletes miss a spec holding data (the files are
   *     deleted; the cycle is to be written again)
   * @throws SinkException if the catalog refused past Iceberg's retries, an outcome stayed
   *     unknown, or on interrupt
   */
  public void commit(
      Table table,
      WriteResult result,
      Map<TopicPartition, Position> offsets,
      Map<TopicPartition, Position> expected) {
    commit(table, result, List.of(), offsets, expected);
  }

  /**
   * As {@link #commit(Table, WriteResult, Map, Map)}, and also fenced if the table's current schema
   * no longer reads a column as {@code writtenWith} wrote it ({@link WrittenSchemas}: a table
   * replaced with a column's type changed), so that the cycle is written again for the new schema.
   */
  public void commit(
      Table table,
      WriteResult result,
      List<Schema> writtenWith,
      Map<TopicPartition, Position> offsets,
      Map<TopicPartition, Position> expected) {
    String commitId = UUID.randomUUID().toString();
    Map<String, String> summary = new HashMap<>();
    summary.put(SnapshotOffsets.key(group), SnapshotOffsets.toJson(offsets));
    summary.put(SnapshotOffsets.COMMIT_ID, commitId);
    Map<TopicPartition, Position> expectedHere = new HashMap<>(expected);
    expectedHere.keySet().retainAll(offsets.keySet());
    TableOperations ops = ((HasTableOperations) table).operations();
    FencingTableOperations fencing =
        new FencingTableOperations(ops, group, commitId, offsets, expectedHere, result, writtenWith);
    Table fenced = new BaseTable(fencing, table.name());
    boolean outcomeUnknown = false;
    long conflictDeadline = System.nanoTime() + 1_000_000L * PropertyUtil.propertyAsLong(
        table.properties(), COMMIT_TOTAL_RETRY_TIME_MS, COMMIT_TOTAL_RETRY_TIME_MS_DEFAULT);
    int lostRaces = 0;
    ReentrantLock turn = takeTurns ? TURNS.computeIfAbsent(table.location(), location -> new ReentrantLock(true)) : null;
    for (int attempt = 0; ; attempt++) {
      Runnable waitBeforeNextAttempt; // outside the turn, so that the others go on meanwhile
      boolean held = takeTurn(turn, table);
      try {
        String before = refreshed(ops, table, result, outcomeUnknown).metadataFileLocation();
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
        } catch (CommitStateUnknownException e) {
          outcomeUnknown = true;
          fencing.lookForEarlierAttempt();
          if (SnapshotOffsets.containsCommit(refreshed(ops, table, result, outcomeUnknown), commitId)) {
            return;
          }
          int unknownAttempt = attempt;
          waitBeforeNextAttempt = () -> retryAfterUnknown(unknownAttempt, table, e);
        } catch (CommitFailedException conflict) {
          boolean othersCommitted =
              !Objects.equals(before, refreshed(ops, table, result, outcomeUnknown).metadataFileLocation());
          if (!othersCommitted || System.nanoTime() - conflictDeadline > 0) {
            deleteUnlessReferenced(table, result, outcomeUnknown);
            throw new SinkException("could not commit to " + table.name()
                + (outcomeUnknown ? " (an earlier attempt's outcome was unknown: its files are kept)" : "")
                + (othersCommitted ? ": other writers kept committing first for commit.retry.total-timeout-ms" : ""),
                conflict);
          }
          int lost = ++lostRaces;
          waitBeforeNextAttempt = () -> waitAfterLostRaces(lost, table);
        } catch (RuntimeException e) {
          if (gone(e)) {
            throw goneOrRethrown(e, table, result, outcomeUnknown);
          }
          FencedException upgraded = refusedAfterUpgrade(e, result, ops, table, outcomeUnknown);
          // Iceberg's rule: only a cleanable failure (a conflict past its retries, fencing) says for
          // sure that nothing was committed; so does a commit Iceberg refused to plan.
          deleteUnlessReferenced(table, result, outcomeUnknown || !(e instanceof CleanableFailure || upgraded != null));
          if (upgraded != null) {
            throw upgraded;
          }
          if (e instanceof FencedException || !(e instanceof CleanableFailure)) {
            throw e;
          }
          throw new SinkException("could not commit to " + table.name()
              + (outcomeUnknown ? " (an earlier attempt's outcome was unknown: its files are kept)" : ""), e);
        }
      } finally {
        if (held) {
          turn.unlock();
        }
      }
      waitBeforeNextAttempt.run();
    }
  }

  /**
   * A fence when Iceberg refused to plan the commit because {@code result} holds position-delete
   * files written for format v2 and the table was upgraded to v3 since (v3 takes deletion vectors
   * only; checked when a delete file is added and again at each retry): the sink writes the cycle
   * again with writers for the table as it is now, as after a fence. Null for any other failure.
   */
  private static FencedException refusedAfterUpgrade(
      RuntimeException e, WriteResult result, TableOperations ops, Table table, boolean outcomeUnknown) {
    boolean v2PositionDeletes = Arrays.stream(result.deleteFiles())
        .anyMatch(file -> file.content() == FileContent.POSITION_DELETES && !ContentFileUtil.isDV(file));
    if (!(e instanceof IllegalArgumentException) || !v2PositionDeletes) {
      return null;
    }
    int formatVersion = refreshed(ops, table, result, outcomeUnknown).formatVersion();
    if (formatVersion < 3) {
      return null;
    }
    FencedException fence = new FencedException("table " + table.name() + " was upgraded to format v" + formatVersion
        + " while this cycle's writers wrote v2 position-delete files, which it refuses (deletion vectors only): the"
        + " cycle is written again for it");
    fence.addSuppressed(e);
    return fence;
  }

  /**
   * The table's metadata, refreshed; a table dropped meanwhile ends the commit as {@link
   * #goneOrRethrown} says, wherever in the retries the refresh is.
   */
  private static TableMetadata refreshed(TableOperations ops, Table table, WriteResult result, boolean outcomeUnknown) {
    try {
      return ops.refresh();
    } catch (RuntimeException e) {
      throw goneOrRethrown(e, table, result, outcomeUnknown);
    }
  }

  /**
   * Whether {@code e} says the table was dropped, or dropped and created again (Iceberg checks the
   * table's UUID at each refresh), while the cycle was written.
   */
  private static boolean gone(RuntimeException e) {
    return e instanceof NoSuchTableException
        || (e instanceof IllegalStateException && String.valueOf(e.getMessage()).startsWith("Table UUID does not match"));
  }

  /**
   * For a table gone ({@link #gone}): the cycle's files deleted (they belong to a table that no
   * longer exists, and the new one's commits never reference them) -- unless an earlier attempt's
   * outcome was unknown, when the dropped table's metadata may reference them -- and the sink's
   * failure saying so. Any other failure is returned as it is, to be thrown.
   */
  private static RuntimeException goneOrRethrown(
      RuntimeException e, Table table, WriteResult result, boolean outcomeUnknown) {
    if (!gone(e)) {
      return e;
    }
    deleteUnlessReferenced(table, result, outcomeUnknown);
    return new SinkException("table " + table.name() + " was dropped" + (e instanceof NoSuchTableException ? ""
        : " and created again") + " while the sink wrote to it: this cycle is "
        + (outcomeUnknown ? "not committed to it, but may have landed in the dropped table before" : "not committed")
        + ", and a restart resumes the partitions from the consumer group's offsets, into the table as it is then", e);
  }

  /**
   * Waits for the table's turn in this process, up to {@link #TURN_WAIT_MS}; whether it holds it
   * (false for a null turn, none to wait for).
   */
  private static boolean takeTurn(ReentrantLock turn, Table table) {
    if (turn == null) {
      return false;
    }
    try {
      if (turn.tryLock(TURN_WAIT_MS, TimeUnit.MILLISECONDS)) {
        return true;
      }
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new SinkException("interrupted while waiting for another committer to " + table.name(), interrupted);
    }
    LOG.info("another commit to {} in this process has held the table for {} ms; committing without waiting for it",
        table.name(), TURN_WAIT_MS);
    return false;
  }

  /**
   * After Iceberg's own retries lost to other writers {@code lostRaces} times in a row: a random
   * wait of up to the retry wait's exponential bound, so that the writers still waiting do not meet
   * again at once.
   */
  private static void waitAfterLostRaces(int lostRaces, Table table) {
    Map<String, String> props = table.properties();
    long min = PropertyUtil.propertyAsLong(props, COMMIT_MIN_RETRY_WAIT_MS, COMMIT_MIN_RETRY_WAIT_MS_DEFAULT);
    long max = PropertyUtil.propertyAsLong(props, COMMIT_MAX_RETRY_WAIT_MS, COMMIT_MAX_RETRY_WAIT_MS_DEFAULT);
    long bound = Math.min(max, min << Math.min(lostRaces, 10));
    long wait = ThreadLocalRandom.current().nextLong(min, Math.max(min, bound) + 1);
    LOG.info("commit to {} lost to other writers past Iceberg's retries ({} time(s)); trying again in {} ms",
        table.name(), lostRaces, wait);
    try {
      Thread.sleep(wait);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new SinkException("interrupted while retrying a commit to " + table.name(), interrupted);
    }
  }

  /** Waits as the table's commit.retry.* properties say before trying again, or gives up. */
  private static void retryAfterUnknown(int attempt, Table table, CommitStateUnknownException e) {
    Map<String, String> props = table.properties();
    int retries = PropertyUtil.propertyAsInt(props, COMMIT_NUM_RETRIES, COMMIT_NUM_RETRIES_DEFAULT);
    if (attempt >= retries) {
      throw new SinkException("the outcome of a commit to " + table.name() + " stayed unknown after "
          + (attempt + 1) + " attempts; its files are kept (a snapshot may reference them)", e);
    }
    long min = PropertyUtil.propertyAsLong(props, COMMIT_MIN_RETRY_WAIT_MS, COMMIT_MIN_RETRY_WAIT_MS_DEFAULT);
    long max = PropertyUtil.propertyAsLong(props, COMMIT_MAX_RETRY_WAIT_MS, COMMIT_MAX_RETRY_WAIT_MS_DEFAULT);
    long wait = Math.min(max, min << Math.min(attempt, 20));
    LOG.warn("commit to {}: outcome unknown (attempt {} of {}), retrying in {} ms: {}",
        table.name(), attempt + 1, retries + 1, wait, e.getMessage());
    try {
      Thread.sleep(wait);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new SinkException("interrupted while retrying a commit to " + table.name()
          + "; its files are kept (an earlier attempt may have landed)", interrupted);
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
  public static void deleteFiles(Table table, WriteResult result) {
    deleteFiles(table.io(), result);
  }

  /** The same through {@code io}: best effort, a file that stays is logged, not thrown. */
  public static void deleteFiles(FileIO io, WriteResult result) {
    try {
      Commits.deleteUncommitted(io, result);
    } catch (RuntimeException e) {
      LOG.warn("could not delete {} uncommitted file(s): {}", 1 + e.getSuppressed().length, e.getMessage());
    }
  }

}
