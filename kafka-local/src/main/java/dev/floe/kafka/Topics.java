package dev.floe.kafka;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creating a topic so that it can be used at once: the one place floe does it (the local broker,
 * {@code floe generate}, the end-to-end harness). A topic counts as created once the leader of
 * every partition serves it ({@link ServingPartitions}): a leader named in the metadata is not yet
 * enough for an idempotent producer.
 */
public final class Topics {
  private Topics() {}

  /**
   * Creates {@code topic} and returns once every partition is served.
   *
   * @return false if the topic existed already (then it is not waited for)
   * @throws TimeoutException if Kafka did not create or serve it within {@code timeout}
   * @throws ExecutionException for any other failure of the create call (its cause says why)
   */
  public static boolean create(Admin admin, NewTopic topic, Duration timeout)
      throws ExecutionException, TimeoutException, InterruptedException {
    try {
      admin.createTopics(List.of(topic)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TopicExistsException) {
        return false;
      }
      throw e;
    }
    ServingPartitions.await(admin, List.of(topic.name()), timeout);
    return true;
  }
}
