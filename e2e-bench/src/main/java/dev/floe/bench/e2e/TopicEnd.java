package dev.floe.bench.e2e;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Knows when a subscribed consumer has read its partitions up to the end offsets they had when
 * they were assigned: how the in-process contenders stop at the end of the loaded topic, as floe's
 * sink does with {@code stopAtEnd}. Register it as the subscription's rebalance listener.
 */
final class TopicEnd implements ConsumerRebalanceListener {
  private final KafkaConsumer<?, ?> consumer;
  private final Map<TopicPartition, Long> ends = new HashMap<>();

  TopicEnd(KafkaConsumer<?, ?> consumer) {
    this.consumer = consumer;
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    ends.putAll(consumer.endOffsets(partitions));
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    partitions.forEach(ends::remove);
  }

  /** True once partitions are assigned and the consumer's position is at each one's end. */
  boolean reached() {
    if (ends.isEmpty()) {
      return false;
    }
    for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  List<TopicPartition> partitions() {
    return List.copyOf(ends.keySet());
  }
}
