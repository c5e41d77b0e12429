package dev.floe.bench.e2e;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The consumer settings of the in-process contenders (stock Java sink, bare consume): the fetch
 * sizes floe's sink uses, so that they all read the topic the same way.
 */
final class Consumers {
  private Consumers() {}

  static Map<String, Object> config(String bootstrap, String group) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
    c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
    c.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 << 20);
    c.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 1 << 20);
    return c;
  }
}
