package dev.floe.arrow;

import dev.floe.arrow.internal.Upcalls;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * Messages packed for one native decode call: every payload copied once into one off-heap buffer,
 * plus an offsets array, so decoding a batch is one native call, not one per record.
 *
 * <p>Optionally remembers where each message came from -- a {@link MessageSource} and a position
 * in it, opaque to the batch -- so errors and rejected messages can name it. Reuse a batch with
 * {@link #clear()}; its buffers keep their capacity. Not thread-safe: fill it on one thread, then
 * hand it to the decoding thread.
 *
 * <pre>{@code
 * MessageSource lines = line -> "line " + line + " of events.json";
 * try (MessageBatch batch = new MessageBatch()) {
 *   for (int i = 0; i < jsonLines.size(); i++) {
 *     batch.add(jsonLines.get(i), lines, i + 1);
 *   }
 *   DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.DEAD_LETTER, allocator);
 * }
 * }</pre>
 */
public final class MessageBatch implements AutoCloseable {
  private static final long INITIAL_DATA_BYTES = 1 << 20;
  private static final int INITIAL_MESSAGES = 1024;

  private Arena dataArena;
  private MemorySegment data;
  private long used;
  private Arena offsetsArena;
  private MemorySegment offsets;
  private int count;
  // Where each message came from, one slot per message (null / -1 for a message added without).
  private MessageSource[] sources;
  private long[] positions;
  private boolean closed;

  public MessageBatch() {
    this(INITIAL_DATA_BYTES, INITIAL_MESSAGES);
  }

  /**
   * A batch with room for {@code dataBytes} payload bytes and {@code messages} messages before it
   * first grows (it still grows past them), so a caller that knows its batch size never pays for
   * reallocation. The payload and offsets buffers are allocated off-heap now and freed by {@link
   * #close()}.
   *
   * @throws IllegalArgumentException if either is negative
   */
  public MessageBatch(long dataBytes, int messages) {
    if (dataBytes < 0 || messages < 0) {
      throw new IllegalArgumentException(
          "capacity must not be negative: " + dataBytes + " bytes, " + messages + " messages");
    }
    dataArena = Arena.ofShared();
    offsetsArena = Arena.ofShared();
    try {
      data = dataArena.allocate(dataBytes, 8);
      offsets = offsetsArena.allocate(ValueLayout.JAVA_LONG, messages + 1L);
      sources = new MessageSource[messages];
      positions = new long[messages];
    } catch (RuntimeException | Error e) { // out of memory: the arenas are not left behind
      dataArena.close();
      offsetsArena.close();
      throw e;
    }
  }

  /** Adds a payload (copied). A null payload (a Kafka tombstone) is added as an empty message. */
  public MessageBatch add(byte[] payload) {
    return add(payload, 0, payload == null ? 0 : payload.length);
  }

  public MessageBatch add(byte[] payload, int offset, int length) {
    return add(payload, offset, length, null, -1);
  }

  /** Adds a payload and remembers where it came from, for error messages and dead letters. */
  public MessageBatch add(byte[] payload, MessageSource source, long position) {
    return add(payload, 0, payload == null ? 0 : payload.length, source, position);
  }

  /**
   * Adds the bytes between the buffer's position and limit (copied; the buffer's position, limit
   * and contents are left as they were) and remembers where they came from. Heap and direct
   * buffers both work. A null buffer (a Kafka tombstone) is added as an empty message.
   */
  public MessageBatch add(ByteBuffer payload, MessageSource source, long position) {
    ensureOpen();
    int length = payload == null ? 0 : payload.remaining();
    ensureCapacity(length);
    if (length > 0) {
      if (payload.hasArray()) {
        MemorySegment.copy(
            payload.array(), payload.arrayOffset() + payload.position(), data, ValueLayout.JAVA_BYTE, used, length);
      } else {
        MemorySegment.copy(MemorySegment.ofBuffer(payload), 0, data, used, length);
      }
    }
    append(length, source, position);
    return this;
  }

  private MessageBatch add(byte[] payload, int offset, int length, MessageSource source, long position) {
    ensureOpen();
    if (payload != null) {
      Objects.checkFromIndexSize(offset, length, payload.length);
    } else if (offset != 0 || length != 0) { // a tombstone has no bytes; -5 made byteSize() negative
      throw new IllegalArgumentException("a null payload is an empty message: offset and length must be 0, not "
          + offset + " and " + length);
    }
    ensureCapacity(length);
    if (length > 0) {
      MemorySegment.copy(payload, offset, data, ValueLayout.JAVA_BYTE, used, length);
    }
    append(length, source, position);
    return this;
  }

  /** Records a payload of {@code length} bytes just copied to {@code used}; capacity is checked. */
  private void append(int length, MessageSource source, long position) {
    int index = count;
    sources[index] = source;
    positions[index] = position;
    used += length;
    count = index + 1;
    offsets.setAtIndex(ValueLayout.JAVA_LONG, count, used);
  }

  /** Number of messages. */
  public int size() {
    return count;
  }

  /** Total payload bytes. */
  public long byteSize() {
    return used;
  }

  /** Payload bytes the batch holds room for before it grows (its off-heap buffer's size). */
  public long capacityBytes() {
    ensureOpen();
    return data.byteSize();
  }

  /** A copy of message {@code index}'s payload (for dead-letter output). */
  public byte[] payload(int index) {
    Objects.checkIndex(index, count);
    long start = offsets.getAtIndex(ValueLayout.JAVA_LONG, index);
    long end = offsets.getAtIndex(ValueLayout.JAVA_LONG, index + 1L);
    return data.asSlice(start, end - start).toArray(ValueLayout.JAVA_BYTE);
  }

  /** Where message {@code index} came from, for error messages: {@code message 3 (its source)}. */
  public String describe(int index) {
    Objects.checkIndex(index, count);
    MessageSource source = sources[index];
    return source == null ? "message " + index : "message " + index + " (" + source.describe(positions[index]) + ")";
  }

  /** The source message {@code index} was added with, or null. */
  public MessageSource source(int index) {
    Objects.checkIndex(index, count);
    return sources[index];
  }

  /** Its position in that source, or -1. */
  public long position(int index) {
    Objects.checkIndex(index, count);
    return positions[index];
  }

  /** Empties the batch, keeping its capacity. */
  public void clear() {
    ensureOpen();
    Upcalls.refuseInside("MessageBatch"); // its bytes may be under a decode into that writer
    Arrays.fill(sources, 0, count, null); // let go of the sources; the rest is overwritten
    used = 0;
    count = 0;
  }

  /** The packed payloads; valid until the next add, clear or close. */
  MemorySegment data() {
    ensureOpen();
    return data;
  }

  /** {@code size() + 1} offsets into {@link #data()}. */
  MemorySegment offsets() {
    ensureOpen();
    return offsets;
  }

  /**
   * Frees the buffers. Idempotent.
   *
   * @throws IllegalStateException while a decode of the batch runs (on another thread, or from
   *     inside a writer's {@code OutputStream}): nothing is freed, and a close after it does
   */
  @Override
  public void close() {
    if (dataArena.scope().isAlive() || offsetsArena.scope().isAlive()) {
      Upcalls.refuseInside("MessageBatch");
      retire(dataArena);
      closed = true; // the payloads are gone, whatever the offsets do
      retire(offsetsArena); // refused only if a decode began in between: a close after it frees them
    }
    closed = true;
  }

  /**
   * Closes one of the batch's arenas unless closed already. A decode holds them while it runs, and
   * then the close is refused; before, the batch was marked closed first and its memory never freed
   * (helper-85).
   */
  private static void retire(Arena arena) {
    if (arena.scope().isAlive()) {
      try {
        arena.close();
      } catch (IllegalStateException e) {
        throw new IllegalStateException("MessageBatch is being decoded: it cannot be closed or grown until the"
            + " decode returns (a batch is not for use on two threads at once)", e);
      }
    }
  }

  private int offsetCapacity() {
    return sources.length;
  }

  /** Makes room for one more message of {@code length} bytes. */
  private void ensureCapacity(int length) {
    if (used + length > data.byteSize()) {
      long capacity = Math.max(data.byteSize() * 2, used + length);
      Arena next = Arena.ofShared();
      MemorySegment bigger;
      try {
        bigger = next.allocate(capacity, 8);
        MemorySegment.copy(data, 0, bigger, 0, used);
        retire(dataArena);
      } catch (RuntimeException | Error e) { // the new arena is not left behind
        next.close();
        throw e;
      }
      dataArena = next;
      data = bigger;
    }
    if (count == offsetCapacity()) {
      int capacity = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(count + 1L, count * 2L));
      Arena next = Arena.ofShared();
      MemorySegment bigger;
      try {
        bigger = next.allocate(ValueLayout.JAVA_LONG, capacity + 1L);
        MemorySegment.copy(offsets, 0, bigger, 0, (count + 1L) * Long.BYTES);
        retire(offsetsArena);
      } catch (RuntimeException | Error e) {
        next.close();
        throw e;
      }
      offsetsArena = next;
      offsets = bigger;
      sources = Arrays.copyOf(sources, capacity);
      positions = Arrays.copyOf(positions, capacity);
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("MessageBatch is closed");
    }
  }
}
