package dev.floe.flink;

/**
 * One Kafka record's value and where it came from: what the raw path carries from a {@code
 * KafkaSource} to {@link dev.floe.flink.sink.FloeIcebergSink}, so the JSON is decoded only there,
 * natively, a batch at a time, and a rejected message can be named by topic, partition and offset.
 *
 * @param value the record's value as the broker sent it; null for a tombstone
 * @param key the record's key as the broker sent it, or null: in upsert mode, a tombstone's key (a
 *     JSON object of the table's identifier fields) names the row it deletes
 */
public record KafkaPayload(String topic, int partition, long offset, byte[] value, byte[] key) {
  /** A payload without a key. */
  public KafkaPayload(String topic, int partition, long offset, byte[] value) {
    this(topic, partition, offset, value, null);
  }
}
