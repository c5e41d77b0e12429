package dev.floe.kafka.sink;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka offsets kept in an Iceberg table: the commit that adds a cycle's files also records, for
 * each topic-partition it consumed, the next offset to read and the id of the topic it read. The
 * table is the source of truth for where a consumer group resumes; Kafka's own group offsets are
 * only a hint.
 *
 * <p>Two places hold them, both written by the same atomic commit:
 *
 * <ul>
 *   <li>the snapshot summary key {@code floe.kafka.offsets.<group>}: the partitions of that commit
 *       only (sinks on disjoint partitions each write their own), so offsets follow the snapshot
 *       lineage, also through a rollback;
 *   <li>the table property of the same name: every partition the group ever stored, merged at
 *       each commit. Properties outlive snapshots, so the offsets stay findable after compaction
 *       and snapshot expiry have removed every snapshot the sink wrote.
 * </ul>
 *
 * <p>{@link #latest} reads the lineage first and falls back to the property. The JSON is {@code
 * {"topic":{"id":"<topic id>","next":{"partition":offset},"epoch":{"partition":leader epoch}}}};
 * {@code {"topic":{"partition":offset}}} (no topic id) and entries without epochs from earlier
 * versions are still read. {@code floe.kafka.commit-id} holds a unique id per commit.
 */
public final class SnapshotOffsets {
  public static final String OFFSETS_PREFIX = "floe.kafka.offsets.";
  public static final String COMMIT_ID = "floe.kafka.commit-id";
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One partition's stored position.
   *
   * @param next the next offset to read
   * @param topicId the Kafka id of the topic it was read from (base64, as Kafka prints it), or
   *     null when unknown (stored by an earlier version)
   * @param leaderEpoch the leader epoch of the record before {@code next}, or null when unknown: a
   *     consumer that seeks with it has the broker check that the log still holds that record, and
   *     learns where the log diverged if it was truncated (KIP-320)
   */
  public record Position(long next, String topicId, Integer leaderEpoch) {
    public Position(long next, String topicId) {
      this(next, topicId, null);
    }

    /** Whether this position was stored for the topic that now has {@code currentId} (unknown ids match). */
    public boolean sameTopic(String currentId) {
      return topicId == null || currentId == null || topicId.equals(currentId);
    }
  }

  private SnapshotOffsets() {}

  /** The summary key and table property holding {@code group}'s offsets. */
  public static String key(String group) {
    return OFFSETS_PREFIX + group;
  }

  /**
   * The latest stored position of each wanted partition: from the current snapshot back through
   * its ancestors until every partition is found, then, for any still missing, the table property.
   * Partitions never stored are absent.
   */
  public static Map<TopicPartition, Position> latest(
      TableMetadata metadata, String group, Collection<TopicPartition> wanted) {
    Map<TopicPartition, Position> found = new HashMap<>();
    String key = key(group);
    for (Snapshot snapshot : lineage(metadata)) {
      if (found.size() >= wanted.size()) {
        break;
      }
      String json = snapshot.summary() == null ? null : snapshot.summary().get(key);
      if (json != null) {
        keepWanted(parse(json), wanted, found);
      }
    }
    String property = metadata.properties().get(key);
    if (found.size() < wanted.size() && property != null) {
      keepWanted(parse(property), wanted, found);
    }
    return found;
  }

  private static void keepWanted(
      Map<TopicPartition, Position> stored, Collection<TopicPartition> wanted, Map<TopicPartition, Position> found) {
    stored.forEach((tp, position) -> {
      if (wanted.contains(tp)) {
        found.putIfAbsent(tp, position);
      }
    });
  }

  /** The table property value after a commit of {@code offsets}: what it held, with these replaced. */
  static String mergedProperty(TableMetadata base, String group, Map<TopicPartition, Position> offsets) {
    String property = base.properties().get(key(group));
    Map<TopicPartition, Position> all = property == null ? new HashMap<>() : parse(property);
    // A topic recreated under a new id: its old partitions are gone with it.
    Map<String, String> ids = new HashMap<>();
    offsets.forEach((tp, p) -> ids.put(tp.topic(), p.topicId()));
    all.entrySet().removeIf(e -> ids.containsKey(e.getKey().topic())
        && e.getValue().topicId() != null
        && !e.getValue().topicId().equals(ids.get(e.getKey().topic())));
    all.putAll(offsets);
    return toJson(all);
  }

  /** Whether the current snapshot or an ancestor was committed with {@code commitId}. */
  public static boolean containsCommit(TableMetadata metadata, String commitId) {
    for (Snapshot snapshot : lineage(metadata)) {
      if (snapshot.summary() != null && commitId.equals(snapshot.summary().get(COMMIT_ID))) {
        return true;
      }
    }
    return false;
  }

  /** The current snapshot and its ancestors, newest first (empty for a table without snapshots). */
  private static Iterable<Snapshot> lineage(TableMetadata metadata) {
    Snapshot current = metadata.currentSnapshot();
    return current == null ? List.of() : SnapshotUtil.ancestorsOf(current.snapshotId(), metadata::snapshot);
  }

  /**
   * @throws IllegalArgumentException if two partitions of one topic name different topic ids
   */
  public static String toJson(Map<TopicPartition, Position> offsets) {
    Map<String, Map<Integer, Position>> byTopic = new TreeMap<>();
    offsets.forEach((tp, p) -> byTopic.computeIfAbsent(tp.topic(), t -> new TreeMap<>()).put(tp.partition(), p));
    ObjectNode root = JSON.createObjectNode();
    byTopic.forEach((topic, partitions) -> {
      ObjectNode node = root.putObject(topic);
      String id = partitions.values().iterator().next().topicId();
      if (id != null) {
        node.put("id", id);
      }
      ObjectNode next = node.putObject("next");
      ObjectNode epochs = JSON.createObjectNode();
      partitions.forEach((partition, p) -> {
        if (!Objects.equals(p.topicId(), id)) {
          throw new IllegalArgumentException("partitions of topic " + topic + " name two topic ids: " + partitions);
        }
        next.put(Integer.toString(partition), p.next());
        if (p.leaderEpoch() != null) {
          epochs.put(Integer.toString(partition), p.leaderEpoch());
        }
      });
      if (!epochs.isEmpty()) {
        node.set("epoch", epochs);
      }
    });
    return root.toString();
  }

  public static Map<TopicPartition, Position> parse(String json) {
    try {
      Map<TopicPartition, Position> out = new HashMap<>();
      JsonNode root = JSON.readTree(json);
      root.properties().forEach(topic -> {
        JsonNode node = topic.getValue();
        JsonNode next = node.get("next");
        String id = next == null || node.get("id") == null ? null : node.get("id").asText();
        JsonNode epochs = next == null ? null : node.get("epoch");
        (next == null ? node : next).properties().forEach(p -> {
          JsonNode epoch = epochs == null ? null : epochs.get(p.getKey());
          out.put(new TopicPartition(topic.getKey(), Integer.parseInt(p.getKey())),
              new Position(p.getValue().asLong(), id, epoch == null ? null : epoch.asInt()));
        });
      });
      return out;
    } catch (JsonProcessingException | NumberFormatException e) {
      throw new IllegalStateException("unreadable Kafka offsets in table metadata: " + json, e);
    }
  }

  /** Just the next offsets of {@code positions}. */
  public static Map<TopicPartition, Long> nextOffsets(Map<TopicPartition, Position> positions) {
    Map<TopicPartition, Long> out = new HashMap<>();
    positions.forEach((tp, p) -> out.put(tp, p.next()));
    return out;
  }
}
