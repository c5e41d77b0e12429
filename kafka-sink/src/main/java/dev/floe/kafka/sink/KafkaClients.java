package dev.floe.kafka.sink;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The Kafka clients of a sink, configured from one flat map of properties ({@link
 * SinkConfig#consumerProperties()}): plain keys configure the consumer, and the settings the other
 * clients share with it (security, timeouts) also reach the admin client and the dead-letter
 * producer; keys prefixed {@code producer.} configure only the dead-letter producer, prefix
 * removed.
 */
final class KafkaClients {
  static final String PRODUCER_PREFIX = "producer.";
  /** Consumer settings that would break or confuse another client. */
  private static final Set<String> NOT_SHARED =
      Set.of(CommonClientConfigs.CLIENT_ID_CONFIG, ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG);

  private KafkaClients() {}

  /**
   * The consumer: no auto-commit (the tables hold the offsets), {@code read_committed} (records
   * of aborted transactions never land), no automatic offset reset (the sink handles a position
   * out of range itself), then the user's settings.
   */
  static Map<String, Object> consumer(SinkConfig config) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, config.group());
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    // A poll never takes more than a commit cycle's worth of records.
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, (int) Math.max(1, Math.min(10_000, config.commitRecords())));
    c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
    c.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 << 20);
    c.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 1 << 20);
    config.consumerProperties().forEach((k, v) -> {
      if (!k.startsWith(PRODUCER_PREFIX)) {
        c.put(k, v);
      }
    });
    return c;
  }

  /** The dead-letter producer: shared settings, then the {@code producer.} ones. */
  static Map<String, Object> producer(SinkConfig config) {
    Map<String, Object> c = shared(config, ProducerConfig.configNames());
    config.consumerProperties().forEach((k, v) -> {
      if (k.startsWith(PRODUCER_PREFIX)) {
        c.put(k.substring(PRODUCER_PREFIX.length()), v);
      }
    });
    return c;
  }

  /** The admin client that reads topic ids. */
  static Map<String, Object> admin(SinkConfig config) {
    return shared(config, AdminClientConfig.configNames());
  }

  private static Map<String, Object> shared(SinkConfig config, Set<String> known) {
    Map<String, Object> c = new HashMap<>();
    config.consumerProperties().forEach((k, v) -> {
      if (known.contains(k) && !NOT_SHARED.contains(k)) {
        c.put(k, v);
      }
    });
    c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    return c;
  }
}
