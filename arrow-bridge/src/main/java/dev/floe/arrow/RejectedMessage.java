package dev.floe.arrow;

/**
 * A message that could not be decoded.
 *
 * @param index its position in the {@link MessageBatch}
 * @param reason why, naming the field path, what was expected and what was found
 * @param payload the original bytes (empty for a null payload)
 * @param source where it came from, as it was added to the batch, or null
 * @param position its position in {@code source}, or -1
 */
public record RejectedMessage(int index, String reason, byte[] payload, MessageSource source, long position) {
  /** Where it came from, for messages: {@code message 3 (topic t, partition 0, offset 42)}. */
  public String describe() {
    return source == null ? "message " + index : "message " + index + " (" + source.describe(position) + ")";
  }
}
