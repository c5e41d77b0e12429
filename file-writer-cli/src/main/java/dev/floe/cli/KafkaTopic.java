package dev.floe.cli;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * A Kafka topic that {@code floe generate} writes to: found with its partition count, or created
 * (replication as the broker's default) -- every broker call bounded by one timeout, so an
 * unreachable broker is a clear error, not a hang.
 */
record KafkaTopic(String name, int partitions, boolean created) {
  /**
   * The topic {@code name} on {@code bootstrap}, created with {@code partitions} partitions if
   * missing ({@code null}: 1). An existing topic must have {@code partitions} partitions, when given.
   * Returns once every partition has a leader.
   */
  static KafkaTopic ensure(String bootstrap, String name, Integer partitions, Duration timeout) {
    try (Admin admin = Admin.create(adminConfig(bootstrap, timeout))) {
      long deadline = System.nanoTime() + timeout.toNanos();
      TopicDescription existing = describe(admin, name, bootstrap, timeout);
      boolean created = false;
      if (existing == null) {
        int wanted = partitions != null ? partitions : 1;
        created = create(admin, new NewTopic(name, Optional.of(wanted), Optional.empty()), bootstrap, timeout);
        existing = awaitDescribed(admin, name, bootstrap, deadline, timeout);
      }
      int actual = existing.partitions().size();
      if (partitions != null && actual != partitions) {
        throw new IllegalArgumentException(
            "topic " + name + " has " + actual + " partitions, not " + partitions
                + " (--partitions): leave --partitions out or use another topic");
      }
      awaitLeaders(admin, existing, bootstrap, deadline, timeout);
      return new KafkaTopic(name, actual, created);
    }
  }

  private static Map<String, Object> adminConfig(String bootstrap, Duration timeout) {
    int millis = (int) timeout.toMillis();
    return Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        AdminClientConfig.CLIENT_ID_CONFIG, "floe-generate",
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
  }

  /** The topic's description, or null if it does not exist. */
  private static TopicDescription describe(Admin admin, String name, String bootstrap, Duration timeout) {
    try {
      return await(admin.describeTopics(List.of(name)).topicNameValues().get(name), bootstrap, timeout);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return null;
      }
      throw failure("cannot describe topic " + name, bootstrap, timeout, e);
    }
  }

  /** True if this call created the topic; false if someone else did in the meantime. */
  private static boolean create(Admin admin, NewTopic topic, String bootstrap, Duration timeout) {
    try {
      await(admin.createTopics(List.of(topic)).all(), bootstrap, timeout);
      return true;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TopicExistsException) {
        return false;
      }
      throw failure("cannot create topic " + topic.name(), bootstrap, timeout, e);
    }
  }

  /**
   * A topic just created may be unknown to the broker's metadata for a moment (describe answers
   * UnknownTopicOrPartition): wait that out.
   */
  private static TopicDescription awaitDescribed(
      Admin admin, String name, String bootstrap, long deadline, Duration timeout) {
    TopicDescription description = describe(admin, name, bootstrap, timeout);
    while (description == null) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "topic " + name + " on " + bootstrap + " was created but is still unknown after " + seconds(timeout));
      }
      sleep(50);
      description = describe(admin, name, bootstrap, timeout);
    }
    return description;
  }

  /** A new topic's partitions get their leaders a moment after creation; producers need them. */
  private static void awaitLeaders(
      Admin admin, TopicDescription topic, String bootstrap, long deadline, Duration timeout) {
    TopicDescription current = topic;
    while (current.partitions().stream().anyMatch(p -> p.leader() == null || p.leader().isEmpty())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "topic " + topic.name() + " on " + bootstrap + " has partitions without a leader after " + seconds(timeout));
      }
      sleep(50);
      current = describe(admin, topic.name(), bootstrap, timeout);
      if (current == null) {
        throw new IllegalStateException("topic " + topic.name() + " on " + bootstrap + " disappeared");
      }
    }
  }

  private static <T> T await(org.apache.kafka.common.KafkaFuture<T> future, String bootstrap, Duration timeout)
      throws ExecutionException {
    try {
      // The admin client times out by itself (default.api.timeout.ms); this is a backstop.
      return future.get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw unreachable(bootstrap, timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while talking to Kafka at " + bootstrap, e);
    }
  }

  private static RuntimeException failure(String what, String bootstrap, Duration timeout, ExecutionException e) {
    if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
      return unreachable(bootstrap, timeout);
    }
    return new IllegalStateException(what + " on " + bootstrap + ": " + e.getCause().getMessage(), e.getCause());
  }

  private static IllegalStateException unreachable(String bootstrap, Duration timeout) {
    return new IllegalStateException(
        "no answer from Kafka at " + bootstrap + " within " + seconds(timeout)
            + " (is a broker running there? --kafka-timeout sets the wait)");
  }

  private static String seconds(Duration timeout) {
    return timeout.toSeconds() + " s";
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Kafka", e);
    }
  }
}
