package dev.floe.kafka.sink;

import dev.floe.arrow.MessageBatch;
import java.nio.ByteBuffer;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One native decode batch of the sink: the records' values packed off-heap, and, under the
 * dead-letter policy, what a dead letter keeps of each record besides its value ({@link
 * RecordOrigins}; null under the other policies). Filled on the consumer thread, then handed to a
 * table's stages; reused through the {@link BatchPool}.
 */
final class SinkBatch implements AutoCloseable {
  final MessageBatch messages;
  final RecordOrigins origins;

  SinkBatch(MessageBatch messages, boolean keepOrigins) {
    this.messages = messages;
    this.origins = keepOrigins ? new RecordOrigins() : null;
  }

  /** Adds {@code r}, which comes from {@code source} (its partition). */
  void add(ConsumerRecord<ByteBuffer, ByteBuffer> r, PartitionSource source) {
    messages.add(r.value(), source, r.offset());
    if (origins != null) {
      origins.add(r);
    }
  }

  void clear() {
    messages.clear();
    if (origins != null) {
      origins.clear();
    }
  }

  @Override
  public void close() {
    messages.close();
  }
}
