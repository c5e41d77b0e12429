package dev.floe.bench.e2e;

import dev.floe.kafka.ServingPartitions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Creates topics and waits until Kafka serves every partition (see {@link ServingPartitions}: a
 * leader in the metadata is not yet enough for an idempotent producer).
 */
final class Topics {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private Topics() {}

  static void create(String bootstrap, String topic, int partitions) {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
          .all()
          .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      ServingPartitions.await(admin, List.of(topic), TIMEOUT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating " + topic, e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + topic + " on " + bootstrap, e);
    }
  }
}
