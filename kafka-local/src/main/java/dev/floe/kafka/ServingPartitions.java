package dev.floe.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.RetriableException;

/**
 * Whether Kafka serves a topic's partitions: each has a leader, and that leader already answers
 * requests as the leader. Wait for this before producing to a topic just created, or to a broker
 * just restarted.
 *
 * <p>A leader in the metadata is not enough. A broker answers metadata requests from its metadata
 * cache, which names a partition's leader a moment before the broker has made its own replica the
 * leader (0.1-0.6 s on a busy 2-core machine). A produce request in that window fails with
 * NOT_LEADER_OR_FOLLOWER and is retried, but an idempotent producer's next batch for the same
 * partition may arrive just after the window and be taken as that producer's first. The broker
 * then rejects the retried earlier batch with OUT_OF_ORDER_SEQUENCE_NUMBER until it expires
 * ({@code delivery.timeout.ms}, two minutes by default): seen in CI, and reproduced here in 1 of 12
 * runs. Only a leading replica answers ListOffsets, so a partition counts as served once a
 * ListOffsets request for it succeeds.
 */
public final class ServingPartitions {
  private ServingPartitions() {}

  /**
   * Waits until every partition of {@code topics} is served.
   *
   * @throws IllegalStateException after {@code timeout}, naming the partitions not served, or at
   *     once on an error that waiting does not cure (such as a missing authorization)
   */
  public static void await(Admin admin, Collection<String> topics, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Duration request =
        timeout.compareTo(Duration.ofSeconds(2)) < 0 ? timeout : Duration.ofSeconds(2);
    List<TopicPartition> notServed = notServed(admin, topics, request);
    while (!notServed.isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "Kafka does not serve " + notServed + " after " + timeout.toSeconds() + " s"
                + " (a partition -1: the topic is unknown to the broker)");
      }
      Thread.sleep(50);
      notServed = notServed(admin, topics, request);
    }
  }

  /**
   * The partitions of {@code topics} that are not served yet, with partition -1 standing for a
   * topic the broker does not know yet. Each request waits at most {@code requestTimeout}.
   *
   * @throws IllegalStateException on an error that waiting does not cure
   */
  public static List<TopicPartition> notServed(
      Admin admin, Collection<String> topics, Duration requestTimeout) throws InterruptedException {
    if (topics.isEmpty()) {
      return List.of();
    }
    long timeoutMs = requestTimeout.toMillis();
    List<TopicPartition> notServed = new ArrayList<>();
    Map<TopicPartition, OffsetSpec> led = new LinkedHashMap<>();
    var descriptions = admin.describeTopics(topics).topicNameValues();
    for (var entry : descriptions.entrySet()) {
      String topic = entry.getKey();
      TopicDescription description = resultOrNull(entry.getValue(), timeoutMs, topic);
      if (description == null) {
        notServed.add(new TopicPartition(topic, -1));
        continue;
      }
      for (TopicPartitionInfo info : description.partitions()) {
        TopicPartition partition = new TopicPartition(topic, info.partition());
        if (info.leader() == null || info.leader().isEmpty()) {
          notServed.add(partition);
        } else {
          led.put(partition, OffsetSpec.latest());
        }
      }
    }
    if (led.isEmpty()) {
      return notServed;
    }
    ListOffsetsResult offsets =
        admin.listOffsets(led, new ListOffsetsOptions().timeoutMs((int) timeoutMs));
    for (TopicPartition partition : led.keySet()) {
      if (resultOrNull(offsets.partitionResult(partition), timeoutMs, partition) == null) {
        notServed.add(partition);
      }
    }
    return notServed;
  }

  /** The future's value; null if it failed in a way that waiting may cure (retriable, timeout). */
  private static <T> T resultOrNull(KafkaFuture<T> future, long timeoutMs, Object what)
      throws InterruptedException {
    try {
      return future.get(timeoutMs + 1_000, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return null;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RetriableException) {
        return null;
      }
      throw new IllegalStateException(
          "Kafka cannot serve " + what + ": " + e.getCause(), e.getCause());
    }
  }
}
