package dev.floe.kafka.sink;

import dev.floe.arrow.MessageSource;
import org.apache.kafka.common.TopicPartition;

/** A Kafka partition as the source of a batch's messages; positions are offsets. One per partition. */
record PartitionSource(TopicPartition partition) implements MessageSource {
  @Override
  public String describe(long offset) {
    return "topic " + partition.topic() + ", partition " + partition.partition() + ", offset " + offset;
  }
}
