package dev.floe.kafka.sink;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;

/**
 * Kafka's ids of the topics the sink reads. A topic deleted and created again under the same name
 * gets a new id and starts its offsets over, so offsets are stored with the id they belong to.
 */
final class TopicIds implements AutoCloseable {
  private final Admin admin;
  private final Map<String, String> known = new HashMap<>();

  /** @param adminConfig Kafka admin client settings (bootstrap servers, security) */
  TopicIds(Map<String, Object> adminConfig) {
    this.admin = Admin.create(adminConfig);
  }

  /** Asks the cluster for the current ids of {@code topics} and remembers them. */
  Map<String, String> refresh(Collection<String> topics) {
    if (topics.isEmpty()) {
      return Map.of();
    }
    Map<String, String> ids = new HashMap<>();
    try {
      for (TopicDescription d : admin.describeTopics(topics).allTopicNames().get().values()) {
        ids.put(d.name(), d.topicId().toString());
      }
    } catch (ExecutionException e) {
      throw new SinkException("could not read the ids of topics " + topics + ": " + e.getCause().getMessage(),
          e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SinkException("interrupted while reading topic ids", e);
    }
    synchronized (known) {
      known.putAll(ids);
    }
    return ids;
  }

  /** The id last read for {@code topic}, or null. */
  String get(String topic) {
    synchronized (known) {
      return known.get(topic);
    }
  }

  @Override
  public void close() {
    admin.close();
  }
}
