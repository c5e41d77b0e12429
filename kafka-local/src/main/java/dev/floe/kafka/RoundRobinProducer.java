package dev.floe.kafka;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Fills a topic for a test or a demo: message i goes to partition {@code i % partitions}. */
public final class RoundRobinProducer {
  private RoundRobinProducer() {}

  /**
   * Sends every message, acknowledged by all replicas, and returns once all are acknowledged. A
   * null message is a tombstone.
   */
  public static void send(String bootstrapServers, String topic, int partitions, List<byte[]> messages) {
    send(bootstrapServers, topic, null, messages, i -> i % partitions);
  }

  /** As {@link #send}, message i to partition {@code partitions.get(i)}. */
  public static void sendTo(String bootstrapServers, String topic, List<Integer> partitions, List<byte[]> messages) {
    send(bootstrapServers, topic, null, messages, partitions::get);
  }

  /** As {@link #sendTo}, message i with key {@code keys.get(i)} (null: none). */
  public static void sendTo(
      String bootstrapServers, String topic, List<Integer> partitions, List<byte[]> keys, List<byte[]> messages) {
    send(bootstrapServers, topic, keys, messages, partitions::get);
  }

  private static void send(String bootstrapServers, String topic, List<byte[]> keys, List<byte[]> messages,
      java.util.function.IntUnaryOperator partitionOf) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < messages.size(); i++) {
        byte[] key = keys == null ? null : keys.get(i);
        producer.send(new ProducerRecord<>(topic, partitionOf.applyAsInt(i), key, messages.get(i)));
      }
      producer.flush();
    }
  }
}
