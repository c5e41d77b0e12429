package dev.floe.connect;

import dev.floe.arrow.MessageSource;
import org.apache.kafka.common.TopicPartition;

/** A Kafka partition as the source of a batch's messages (positions are offsets): what errors name. */
record PartitionSource(TopicPartition partition) implements MessageSource {
  @Override
  public String describe(long offset) {
    return "topic " + partition.topic() + ", partition " + partition.partition() + ", offset " + offset;
  }
}
