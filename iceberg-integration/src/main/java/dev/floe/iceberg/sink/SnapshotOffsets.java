package dev.floe.iceberg.sink;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka offsets kept in Iceberg snapshot summaries: the commit that adds a cycle's files also
 * records, for each topic-partition it consumed, the next offset to read. The table is the source
 * of truth for where a consumer group resumes; Kafka's own group offsets are only a hint.
 *
 * <p>Summary keys: {@code floe.kafka.offsets.<group>} holds {@code {"topic":{"partition":next}}}
 * for the partitions of that commit only (sinks on disjoint partitions each write their own), and
 * {@code floe.kafka.commit-id} a unique id per commit.
 */
public final class SnapshotOffsets {
  public static final String OFFSETS_PREFIX = "floe.kafka.offsets.";
  public static final String COMMIT_ID = "floe.kafka.commit-id";
  private static final ObjectMapper JSON = new ObjectMapper();

  private SnapshotOffsets() {}

  public static String key(String group) {
    return OFFSETS_PREFIX + group;
  }

  /**
   * The latest stored offset of each wanted partition: walks back from the current snapshot
   * through its ancestors until every partition is found. Partitions never committed are absent.
   */
  public static Map<TopicPartition, Long> latest(
      TableMetadata metadata, String group, Collection<TopicPartition> wanted) {
    Map<TopicPartition, Long> found = new HashMap<>();
    String key = key(group);
    Snapshot snapshot = metadata.currentSnapshot();
    while (snapshot != null && found.size() < wanted.size()) {
      String json = snapshot.summary() == null ? null : snapshot.summary().get(key);
      if (json != null) {
        parse(json).forEach((tp, offset) -> {
          if (wanted.contains(tp)) {
            found.putIfAbsent(tp, offset);
          }
        });
      }
      Long parent = snapshot.parentId();
      snapshot = parent == null ? null : metadata.snapshot(parent);
    }
    return found;
  }

  /** The commit id stored by the current snapshot, if a sink made it. */
  public static String currentCommitId(TableMetadata metadata) {
    Snapshot current = metadata.currentSnapshot();
    return current == null || current.summary() == null ? null : current.summary().get(COMMIT_ID);
  }

  /** Whether the current snapshot or an ancestor was committed with {@code commitId}. */
  public static boolean containsCommit(TableMetadata metadata, String commitId) {
    Snapshot snapshot = metadata.currentSnapshot();
    while (snapshot != null) {
      if (snapshot.summary() != null && commitId.equals(snapshot.summary().get(COMMIT_ID))) {
        return true;
      }
      Long parent = snapshot.parentId();
      snapshot = parent == null ? null : metadata.snapshot(parent);
    }
    return false;
  }

  public static String toJson(Map<TopicPartition, Long> offsets) {
    ObjectNode root = JSON.createObjectNode();
    Map<String, Map<Integer, Long>> byTopic = new TreeMap<>();
    offsets.forEach((tp, o) -> byTopic.computeIfAbsent(tp.topic(), t -> new TreeMap<>()).put(tp.partition(), o));
    byTopic.forEach((topic, partitions) -> {
      ObjectNode node = root.putObject(topic);
      partitions.forEach((p, o) -> node.put(Integer.toString(p), o));
    });
    return root.toString();
  }

  public static Map<TopicPartition, Long> parse(String json) {
    try {
      Map<TopicPartition, Long> out = new HashMap<>();
      JsonNode root = JSON.readTree(json);
      root.properties().forEach(topic ->
          topic.getValue().properties().forEach(p ->
              out.put(new TopicPartition(topic.getKey(), Integer.parseInt(p.getKey())), p.getValue().asLong())));
      return out;
    } catch (JsonProcessingException | NumberFormatException e) {
      throw new IllegalStateException("unreadable Kafka offsets in a snapshot summary: " + json, e);
    }
  }
}
