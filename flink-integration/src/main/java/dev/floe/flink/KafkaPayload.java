package dev.floe.flink;

/**
 * One Kafka record's value and where it came from: what the raw path carries from a {@code
 * KafkaSource} to {@link dev.floe.flink.sink.FloeIcebergSink}, so the JSON is decoded only there,
 * natively, a batch at a time, and a rejected message can be named by topic, partition and offset.
 *
 * @param value the record's value as the broker sent it; null for a tombstone
 */
public record KafkaPayload(String topic, int partition, long offset, byte[] value) {}
