package dev.floe.bench.e2e;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Creates topics and waits until the broker serves every partition. A topic that was just created
 * can still be unknown to the broker's metadata for a moment (describe answers
 * UnknownTopicOrPartition, and producers sending then were seen to stall); this waits that out.
 */
final class Topics {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private Topics() {}

  static void create(String bootstrap, String topic, int partitions) {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
          .all()
          .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (!served(admin, topic, partitions)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("topic " + topic + " has partitions without a leader after " + TIMEOUT);
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating " + topic, e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + topic + " on " + bootstrap, e);
    }
  }

  private static boolean served(Admin admin, String topic, int partitions) throws Exception {
    try {
      TopicDescription d =
          admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
      return d.partitions().size() == partitions && d.partitions().stream().allMatch(p -> p.leader() != null);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return false; // created, not yet in the metadata the broker serves
      }
      throw e;
    }
  }
}
