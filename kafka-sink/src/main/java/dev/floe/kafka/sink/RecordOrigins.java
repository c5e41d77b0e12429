package dev.floe.kafka.sink;

import dev.floe.arrow.RejectedMessage;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.function.IntFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;

/**
 * What a dead letter keeps of each record of a message batch besides its value: key, timestamp,
 * headers, and whether the value was null (a tombstone; the batch holds it as an empty message).
 * Kept only under the dead-letter policy, index by index alongside the batch. Timestamps cost a
 * slot each; keys and headers are copied (the consumer reuses its buffers) only for records that
 * have them.
 */
final class RecordOrigins {
  private long[] timestamps = new long[1024];
  private byte[][] keys;
  private Header[][] headers;
  private final BitSet tombstones = new BitSet();
  private int size;

  /** Remembers record {@code r}, which the batch holds at index {@link #size()}. */
  void add(ConsumerRecord<ByteBuffer, ByteBuffer> r) {
    int index = size++;
    if (index == timestamps.length) {
      timestamps = Arrays.copyOf(timestamps, index * 2);
    }
    timestamps[index] = r.timestampType() == TimestampType.NO_TIMESTAMP_TYPE ? -1 : r.timestamp();
    if (r.value() == null) {
      tombstones.set(index);
    }
    if (r.key() != null) {
      keys = grown(keys, index, byte[][]::new);
      keys[index] = copy(r.key());
    }
    Header[] original = r.headers().toArray();
    if (original.length > 0) {
      headers = grown(headers, index, Header[][]::new);
      Header[] copies = new Header[original.length];
      for (int i = 0; i < original.length; i++) {
        copies[i] = new RecordHeader(original[i].key(), original[i].value());
      }
      headers[index] = copies;
    }
  }

  int size() {
    return size;
  }

  /** The dead letter for a rejected message of this batch. */
  DeadLetters.DeadLetter deadLetter(RejectedMessage rejected) {
    int i = rejected.index();
    TopicPartition from = ((PartitionSource) rejected.source()).partition();
    return new DeadLetters.DeadLetter(
        from.topic(), from.partition(), rejected.position(), rejected.reason(),
        keys == null || i >= keys.length ? null : keys[i],
        tombstones.get(i) ? null : rejected.payload(),
        timestamps[i] < 0 ? null : timestamps[i],
        headers == null || i >= headers.length ? null : headers[i]);
  }

  /** The dead letter for a record that never reached a batch (no route). */
  static DeadLetters.DeadLetter deadLetter(ConsumerRecord<ByteBuffer, ByteBuffer> r, String reason) {
    RecordOrigins one = new RecordOrigins();
    one.add(r);
    byte[] value = r.value() == null ? null : copy(r.value());
    PartitionSource source = new PartitionSource(new TopicPartition(r.topic(), r.partition()));
    return one.deadLetter(new RejectedMessage(0, reason, value, source, r.offset()));
  }

  void clear() {
    if (keys != null) {
      Arrays.fill(keys, 0, Math.min(size, keys.length), null);
    }
    if (headers != null) {
      Arrays.fill(headers, 0, Math.min(size, headers.length), null);
    }
    tombstones.clear();
    size = 0;
  }

  /** {@code array} with room for {@code index} (created on first use: most records have no key or headers). */
  private <T> T[] grown(T[] array, int index, IntFunction<T[]> create) {
    if (array == null) {
      return create.apply(Math.max(index + 1, timestamps.length));
    }
    return index < array.length ? array : Arrays.copyOf(array, Math.max(index + 1, timestamps.length));
  }

  private static byte[] copy(ByteBuffer buffer) {
    byte[] out = new byte[buffer.remaining()];
    buffer.get(buffer.position(), out);
    return out;
  }
}
