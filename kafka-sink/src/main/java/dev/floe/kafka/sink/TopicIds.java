package dev.floe.kafka.sink;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

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
    Map<String, String> ids = current(topics);
    synchronized (known) {
      known.putAll(ids);
    }
    return ids;
  }

  /**
   * Asks the cluster for the current ids of {@code topics}, without remembering them. A topic the
   * cluster no longer has (deleted while the sink reads it, e.g. under a pattern) is left out, not
   * a failure: the others' ids still count.
   */
  Map<String, String> current(Collection<String> topics) {
    if (topics.isEmpty()) {
      return Map.of();
    }
    Map<String, String> ids = new HashMap<>();
    try {
      for (var topic : admin.describeTopics(topics).topicNameValues().entrySet()) {
        try {
          TopicDescription d = topic.getValue().get();
          ids.put(d.name(), d.topicId().toString());
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
            throw new SinkException("could not read the id of topic " + topic.getKey() + ": "
                + e.getCause().getMessage(), e.getCause());
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SinkException("interrupted while reading topic ids", e);
    }
    return ids;
  }

  /**
   * Which of {@code topics} the cluster does not have; fails naming {@code servers} if the cluster
   * does not answer within {@code timeout}.
   */
  Set<String> missing(Collection<String> topics, Duration timeout, String servers) {
    try {
      admin.describeCluster().clusterId().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      Set<String> missing = new TreeSet<>();
      for (var topic : admin.describeTopics(topics).topicNameValues().entrySet()) {
        try {
          topic.getValue().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
            throw new SinkException("could not look up topic " + topic.getKey() + ": " + e.getCause().getMessage(),
                e.getCause());
          }
          missing.add(topic.getKey());
        }
      }
      return missing;
    } catch (TimeoutException | ExecutionException e) {
      throw new SinkException("no answer from Kafka at " + servers + " within " + timeout.toSeconds()
          + " s (is a broker running there? kafka.timeout sets the wait)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SinkException("interrupted while looking up topics " + topics, e);
    }
  }

  /**
   * Creates {@code topic} with the cluster's defaults (partitions, replication), as Kafka Connect
   * creates its dead-letter topic, and {@code configs}; another client creating it meanwhile is fine.
   */
  void create(String topic, Map<String, String> configs, Duration timeout) {
    try {
      admin.createTopics(List.of(new NewTopic(topic, Optional.empty(), Optional.empty()).configs(configs)))
          .all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new SinkException("could not create topic " + topic + ": " + e.getCause().getMessage(), e.getCause());
      }
    } catch (TimeoutException e) {
      throw new SinkException("Kafka did not create topic " + topic + " within " + timeout.toSeconds() + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SinkException("interrupted while creating topic " + topic, e);
    }
  }

  /** The id last read for {@code topic}, or null. */
  String get(String topic) {
    synchronized (known) {
      return known.get(topic);
    }
  }

  /**
   * Without waiting for requests in flight: every answer the sink needs it waited for already (its
   * own timeout), and a broker that cannot be reached would hold the default close for a minute.
   */
  @Override
  public void close() {
    admin.close(java.time.Duration.ZERO);
  }
}
