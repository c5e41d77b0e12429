package dev.floe.arrow;

/**
 * A message that could not be decoded.
 *
 * @param index its position in the {@link MessageBatch}
 * @param source where it came from, e.g. {@code message 3 (topic t, partition 0, offset 42)}
 * @param reason why, naming the field path, what was expected and what was found
 * @param payload the original bytes (empty for a null payload)
 * @param topic its Kafka topic, or null
 * @param partition its Kafka partition, or -1
 * @param offset its Kafka offset, or -1
 */
public record RejectedMessage(
    int index, String source, String reason, byte[] payload, String topic, int partition, long offset) {}
