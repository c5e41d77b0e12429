package dev.floe.arrow;

/**
 * Where messages come from, as a {@link MessageBatch} records it: one object per source (a Kafka
 * partition, an input file), shared by all its messages, each of which also has a position in it
 * (an offset, a line number). Opaque to the batch and the decoder: they only ask it to name a
 * message in errors; the caller that made it reads its own type back from {@link
 * RejectedMessage#source()}.
 */
@FunctionalInterface
public interface MessageSource {
  /** Names the message at {@code position}, e.g. {@code topic t, partition 0, offset 42}. */
  String describe(long position);
}
