package dev.floe.bench.e2e;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/** The harness's topics: new ones only, created through kafka-local's one topic helper. */
final class Topics {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private Topics() {}

  /** Creates {@code topic} (replication 1) and returns once Kafka serves every partition. */
  static void create(String bootstrap, String topic, int partitions) {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      if (!dev.floe.kafka.Topics.create(admin, new NewTopic(topic, partitions, (short) 1), TIMEOUT)) {
        throw new IllegalStateException("topic " + topic + " exists already on " + bootstrap);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating " + topic, e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + topic + " on " + bootstrap, e);
    }
  }
}
