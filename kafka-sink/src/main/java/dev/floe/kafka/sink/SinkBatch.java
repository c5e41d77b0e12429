package dev.floe.kafka.sink;

import dev.floe.arrow.MessageBatch;
import java.nio.ByteBuffer;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One native decode batch of the sink: the records' values packed off-heap -- or, in upsert mode,
 * the keys of tombstones, whose rows are deleted ({@link #keys}) -- and, under the dead-letter
 * policy, what a dead letter keeps of each record besides what was packed ({@link RecordOrigins};
 * null under the other policies). Filled on the consumer thread, then handed to a table's stages;
 * reused through the {@link BatchPool}.
 */
final class SinkBatch implements AutoCloseable {
  final MessageBatch messages;
  final RecordOrigins origins;
  /** Whether this batch holds tombstones' keys rather than values (set while it is empty). */
  boolean keys;

  SinkBatch(MessageBatch messages, boolean keepOrigins) {
    this.messages = messages;
    this.origins = keepOrigins ? new RecordOrigins() : null;
  }

  /** Adds {@code r}, which comes from {@code source} (its partition): its value, or its key in a batch of keys. */
  void add(ConsumerRecord<ByteBuffer, ByteBuffer> r, PartitionSource source) {
    messages.add(keys ? r.key() : r.value(), source, r.offset());
    if (origins != null) {
      origins.add(r);
    }
  }

  void clear() {
    keys = false;
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
