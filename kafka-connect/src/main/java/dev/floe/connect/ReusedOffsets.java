package dev.floe.connect;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Partitions whose offsets were reused (the topic recreated, or its log truncated), from the first
 * offset read again: records from there on are new, whatever offsets the tables hold.
 *
 * <p>A table's stored offset for such a partition is stale, from before the reuse, until a commit
 * stores one again: a commit of this task, or another writer's, found when a fence makes the task
 * read the tables again. Stale offsets are kept per table, not per partition, because a fenced
 * cycle commits some of its tables and not the rest: the committed ones must skip what they now
 * hold, the others must not skip the new records below their old offsets.
 *
 * <p>Only the task's threads use it, under the task's cycle lock.
 */
final class ReusedOffsets {
  private final Map<TopicPartition, Long> reusedFrom = new HashMap<>();
  /** Per reused partition, the tables whose offset for it was stored since the reuse was found. */
  private final Map<TopicPartition, Set<String>> storedSince = new HashMap<>();

  /** The consumer reset {@code tp} to {@code offset}, below where the tables hold it. */
  void found(TopicPartition tp, long offset) {
    reusedFrom.put(tp, offset);
    storedSince.remove(tp); // a second reset: every table's offset is past the log's end again
  }

  boolean any() {
    return !reusedFrom.isEmpty();
  }

  /** Whether {@code table}'s stored offset for {@code tp} is from before the reuse. */
  boolean stale(String table, TopicPartition tp) {
    return reusedFrom.containsKey(tp) && !storedSince.getOrDefault(tp, Set.of()).contains(table);
  }

  /** Records of {@code tp} below this are in {@code table}, which stores {@code next} for it. */
  long skipBelow(String table, TopicPartition tp, long next) {
    return stale(table, tp) ? Math.min(reusedFrom.get(tp), next) : next;
  }

  /** {@code table}'s offset for {@code tp} was stored since the reuse was found. */
  void stored(String table, TopicPartition tp) {
    if (reusedFrom.containsKey(tp)) {
      storedSince.computeIfAbsent(tp, p -> new HashSet<>()).add(table);
    }
  }

  /** The task no longer owns {@code tp}. */
  void forget(TopicPartition tp) {
    reusedFrom.remove(tp);
    storedSince.remove(tp);
  }
}
