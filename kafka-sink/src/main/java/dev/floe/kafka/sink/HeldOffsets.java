package dev.floe.kafka.sink;

import dev.floe.kafka.sink.SnapshotOffsets.Position;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * What one table holds of the sink's partitions, as this sink last saw it. Two views:
 *
 * <ul>
 *   <li>{@link #stored}: the positions the table's metadata holds, exactly as read or committed,
 *       old topic ids included. Each commit must find them unchanged (fencing).
 *   <li>{@link #floor}: the offset below which the table already has every record of the topic as
 *       it exists now: the stored offset, unless the topic was recreated since (no floor) or its
 *       offsets were reset below it. Route-field mode skips records under the floor when a
 *       partition is re-read for another table.
 * </ul>
 *
 * <p>Loaded by the consumer thread on resume, advanced by the commit thread after each commit,
 * read by both.
 */
final class HeldOffsets {
  private final Map<TopicPartition, Position> stored = new ConcurrentHashMap<>();
  private final Map<TopicPartition, Long> floor = new ConcurrentHashMap<>();

  /** Replaces what is known of {@code partitions} by {@code found} (read from the table). */
  void load(Collection<TopicPartition> partitions, Map<TopicPartition, Position> found, Map<TopicPartition, Long> floors) {
    forget(partitions);
    stored.putAll(found);
    floor.putAll(floors);
  }

  /** After a commit of {@code offsets}: the table holds them, and every record below them. */
  void committed(Map<TopicPartition, Position> offsets) {
    stored.putAll(offsets);
    offsets.forEach((tp, p) -> floor.put(tp, p.next()));
  }

  /** The partition's offsets were reused from {@code offset} on: the table has nothing of it past that. */
  void lowerFloor(TopicPartition tp, long offset) {
    floor.computeIfPresent(tp, (k, current) -> Math.min(current, offset));
  }

  void forget(Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      stored.remove(tp);
      floor.remove(tp);
    }
  }

  /** The stored positions of {@code partitions} (fencing's expectation); absent if never stored. */
  Map<TopicPartition, Position> stored(Collection<TopicPartition> partitions) {
    Map<TopicPartition, Position> out = new HashMap<>();
    for (TopicPartition tp : partitions) {
      Position p = stored.get(tp);
      if (p != null) {
        out.put(tp, p);
      }
    }
    return out;
  }

  /** The stored position of one partition, or null. */
  Position stored(TopicPartition tp) {
    return stored.get(tp);
  }

  /** The offset below which the table has every record of {@code tp}, or null if none is known. */
  Long floor(TopicPartition tp) {
    return floor.get(tp);
  }

  /**
   * The leader epoch of the record before the floor, when the floor is the stored offset and that
   * was stored with its epoch; null otherwise. A record under the floor written in a later epoch
   * was written after the log was truncated: it is new to the table.
   */
  Integer floorEpoch(TopicPartition tp) {
    Position p = stored.get(tp);
    Long f = floor.get(tp);
    return p != null && f != null && p.next() == f ? p.leaderEpoch() : null;
  }
}
