package dev.floe.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a topic back in a test (a dead-letter topic, say), without a consumer group. */
public final class TopicReader {
  private TopicReader() {}

  /**
   * Reads partition 0 of {@code topic} from its beginning until {@code expected} records came (or
   * 30 s passed), then half a second more: a record beyond the expected ones shows in the result.
   */
  public static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrapServers, String topic, int expected) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (out.size() < expected && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(out::add);
      }
      consumer.poll(Duration.ofMillis(500)).forEach(out::add);
    }
    return out;
  }
}
