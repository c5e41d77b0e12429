package dev.floe.cli;

import dev.floe.kafka.ServingPartitions;
import dev.floe.kafka.Topics;
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
   * Returns once Kafka serves every partition.
   */
  static KafkaTopic ensure(String bootstrap, String name, Integer partitions, Duration timeout) {
    try (Admin admin = Admin.create(adminConfig(bootstrap, timeout))) {
      long deadline = System.nanoTime() + timeout.toNanos();
      TopicDescription existing = describe(admin, name, bootstrap, timeout);
      boolean created = false;
      if (existing == null) {
        int wanted = partitions != null ? partitions : 1;
        created = create(admin, new NewTopic(name, Optional.of(wanted), Optional.empty()), bootstrap, timeout);
      }
      int actual = awaitServed(admin, name, bootstrap, deadline, timeout).partitions().size();
      if (partitions != null && actual != partitions) {
        throw new IllegalArgumentException(
            "topic " + name + " has " + actual + " partitions, not " + partitions
                + " (--partitions): leave --partitions out or use another topic");
      }
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

  /** True if this call created the topic (and it is served); false if someone else did in the meantime. */
  private static boolean create(Admin admin, NewTopic topic, String bootstrap, Duration timeout) {
    try {
      return Topics.create(admin, topic, timeout);
    } catch (TimeoutException e) {
      throw unreachable(bootstrap, timeout);
    } catch (ExecutionException e) {
      throw failure("cannot create topic " + topic.name(), bootstrap, timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while talking to Kafka at " + bootstrap, e);
    }
  }

  /**
   * The topic once Kafka serves every partition (see {@link ServingPartitions}: a leader in the
   * metadata is not yet enough for an idempotent producer). A topic just created may even be
   * unknown to the broker's metadata for a moment; both are waited out until the deadline.
   */
  private static TopicDescription awaitServed(
      Admin admin, String name, String bootstrap, long deadline, Duration timeout) {
    try {
      ServingPartitions.await(
          admin, List.of(name), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    } catch (IllegalStateException e) {
      throw new IllegalStateException(
          "topic " + name + " on " + bootstrap + " is not ready after " + seconds(timeout) + ": "
              + e.getMessage(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Kafka", e);
    }
    TopicDescription served = describe(admin, name, bootstrap, timeout);
    if (served == null) {
      throw new IllegalStateException("topic " + name + " on " + bootstrap + " disappeared");
    }
    return served;
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
}
