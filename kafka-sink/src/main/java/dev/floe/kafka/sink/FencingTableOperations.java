package dev.floe.kafka.sink;

import dev.floe.iceberg.EqualityDeleteReach;
import dev.floe.iceberg.ForwardingTableOperations;
import dev.floe.iceberg.WrittenSchemas;
import dev.floe.kafka.sink.SnapshotOffsets.Position;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CleanableFailure;
import org.apache.iceberg.io.WriteResult;
import org.apache.kafka.common.TopicPartition;

/**
 * Table operations that commit a cycle's Kafka offsets with its files. Iceberg calls {@link
 * #commit} once per attempt, each time on freshly refreshed metadata (a conflicting commit by
 * anyone is retried), so each check below sees the table exactly as the commit would change it:
 *
 * <ol>
 *   <li>after an attempt whose outcome was unknown ({@link #lookForEarlierAttempt()}): if the base
 *       already holds this commit's id, that attempt landed and {@link AlreadyCommittedException}
 *       ends the retry without a second snapshot;
 *   <li>fencing: the base must still hold the offsets this sink expects for its partitions, so a
 *       zombie can never commit offsets someone else already moved;
 *   <li>the base's schema must read every column as the cycle's writers wrote it ({@link
 *       WrittenSchemas}): a table replaced with a column's type changed fences this cycle, which
 *       is then written again for the new schema;
 *   <li>an upsert's equality deletes must reach every partition spec the base holds data in
 *       ({@link EqualityDeleteReach}): data committed in an older spec after the writers were made
 *       (the cycle before, landing as the spec changed) fences this cycle, which is then written
 *       again by writers that delete in that spec too;
 *   <li>the offsets are merged into the table property ({@link SnapshotOffsets}) in the same
 *       metadata change, computed from this exact base: concurrent sinks on other partitions keep
 *       theirs.
 * </ol>
 */
final class FencingTableOperations extends ForwardingTableOperations {
  private final String group;
  private final String commitId;
  private final Map<TopicPartition, Position> offsets;
  private final Map<TopicPartition, Position> expected;
  /** The files committed: their equality deletes must reach the base's data. */
  private final WriteResult result;
  /** The schemas the files were written with: the base must still read their columns so. */
  private final List<Schema> writtenWith;
  private volatile boolean lookForEarlierAttempt;

  /**
   * @param commitId the id this commit stores in its snapshot summary
   * @param offsets the positions this commit stores
   * @param expected those partitions' positions as this sink last saw them in the table (absent:
   *     never stored)
   * @param result the files this commit adds
   * @param writtenWith the schemas they were written with (empty: not checked)
   */
  FencingTableOperations(
      TableOperations delegate,
      String group,
      String commitId,
      Map<TopicPartition, Position> offsets,
      Map<TopicPartition, Position> expected,
      WriteResult result,
      List<Schema> writtenWith) {
    super(delegate);
    this.group = group;
    this.commitId = commitId;
    this.offsets = Map.copyOf(offsets);
    this.expected = Map.copyOf(expected);
    this.result = result;
    this.writtenWith = List.copyOf(writtenWith);
  }

  /** From now on, each attempt first checks whether an earlier one landed after all. */
  void lookForEarlierAttempt() {
    lookForEarlierAttempt = true;
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    if (lookForEarlierAttempt && SnapshotOffsets.containsCommit(base, commitId)) {
      throw new AlreadyCommittedException(commitId);
    }
    Map<TopicPartition, Position> stored = SnapshotOffsets.latest(base, group, offsets.keySet());
    if (!stored.equals(expected)) {
      throw new FencedException(
          "fenced: table offsets for group '" + group + "' are " + stored + ", this sink expected "
              + expected + " (another sink owns these partitions now)");
    }
    List<String> misfits = WrittenSchemas.misfits(writtenWith, base.schema());
    if (!misfits.isEmpty()) {
      throw new FencedException("the table's schema changed under this cycle's files (" + String.join("; ", misfits)
          + "): the cycle is written again for the table's schema");
    }
    Set<Integer> missed = EqualityDeleteReach.specsMissed(base, io(), result);
    if (!missed.isEmpty()) {
      throw new FencedException("the table holds data in partition specs " + missed + " that this cycle's equality"
          + " deletes do not reach (committed there after its writers were made, as the spec changed): the cycle is"
          + " written again by writers that delete there too");
    }
    TableMetadata withOffsets =
        TableMetadata.buildFrom(metadata)
            .setProperties(Map.of(SnapshotOffsets.key(group), SnapshotOffsets.mergedProperty(base, group, offsets)))
            .build();
    super.commit(base, withOffsets);
  }

  /** An earlier attempt of this commit, whose outcome was unknown, is in the table. */
  static final class AlreadyCommittedException extends RuntimeException implements CleanableFailure {
    AlreadyCommittedException(String commitId) {
      super("commit " + commitId + " already landed", null, false, false);
    }
  }
}
