package dev.floe.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MessageBatchTest {
  /** A Kafka partition as a message source, as a sink would make one. */
  record Partition(String topic, int partition) implements MessageSource {
    @Override
    public String describe(long offset) {
      return "topic " + topic + ", partition " + partition + ", offset " + offset;
    }
  }

  private static final Partition T0 = new Partition("t", 0);

  @Test
  void remembersEachMessagesSourceAndPositionAndHandsBackTheSameObjects() {
    Partition p1 = new Partition("events", 1);
    try (MessageBatch batch = new MessageBatch()) {
      batch.add(bytes("{\"a\":1}"), p1, 7).add((ByteBuffer) null, p1, 8).add(bytes("{}"));
      assertSame(p1, batch.source(0));
      assertEquals(8, batch.position(1));
      assertEquals("message 1 (topic events, partition 1, offset 8)", batch.describe(1));
      assertArrayEquals(new byte[0], batch.payload(1), "a null value packs as an empty message");
      assertNull(batch.source(2));
      assertEquals(-1, batch.position(2));
    }
  }

  @Test
  void growsPastItsInitialCapacityAndKeepsEveryByte() {
    try (MessageBatch batch = new MessageBatch()) {
      byte[] big = new byte[3 << 20];
      big[big.length - 1] = 42;
      for (int i = 0; i < 5000; i++) {
        batch.add(bytes("m" + i), T0, i);
      }
      batch.add(big);
      assertEquals(5001, batch.size());
      assertArrayEquals(bytes("m4999"), batch.payload(4999));
      assertEquals("message 4999 (topic t, partition 0, offset 4999)", batch.describe(4999));
      assertArrayEquals(big, batch.payload(5000));
      assertEquals("message 5000", batch.describe(5000));
      batch.clear();
      assertEquals(0, batch.size());
      batch.add(bytes("again"));
      assertArrayEquals(bytes("again"), batch.payload(0));
    }
  }

  @Test
  void addsTheBytesBetweenABuffersPositionAndLimitWithoutMovingIt() {
    ByteBuffer heap = ByteBuffer.wrap(bytes("xx{\"a\":1}yyy"));
    heap.position(2).limit(9);
    // A slice of a fetch buffer: its array offset is not 0 either.
    ByteBuffer slice = ByteBuffer.wrap(bytes("..[1,2]..")).position(2).limit(7).slice();
    ByteBuffer direct = ByteBuffer.allocateDirect(16).put(bytes("ab\"direct\"cd")).position(2).limit(10);
    ByteBuffer readOnly = ByteBuffer.wrap(bytes("-true-")).position(1).limit(5).asReadOnlyBuffer();
    try (MessageBatch batch = new MessageBatch()) {
      batch.add(heap, new Partition("t", 3), 100L)
          .add(slice, new Partition("t", 3), 101L)
          .add(direct, new Partition("u", 0), 7L)
          .add((ByteBuffer) null, new Partition("u", 0), 8L)
          .add(readOnly, new Partition("u", 1), 9L);

      assertEquals(5, batch.size());
      assertEquals(7 + 5 + 8 + 0 + 4, batch.byteSize());
      assertArrayEquals(bytes("{\"a\":1}"), batch.payload(0));
      assertArrayEquals(bytes("[1,2]"), batch.payload(1));
      assertArrayEquals(bytes("\"direct\""), batch.payload(2));
      assertArrayEquals(new byte[0], batch.payload(3), "a null buffer packs as an empty message");
      assertArrayEquals(bytes("true"), batch.payload(4));
      long[] offsets = batch.offsets().asSlice(0, 6L * Long.BYTES).toArray(ValueLayout.JAVA_LONG);
      assertArrayEquals(new long[] {0, 7, 12, 20, 20, 24}, offsets);
      assertEquals("message 0 (topic t, partition 3, offset 100)", batch.describe(0));
      assertEquals("message 1 (topic t, partition 3, offset 101)", batch.describe(1));
      assertEquals("message 2 (topic u, partition 0, offset 7)", batch.describe(2));
      assertEquals("message 3 (topic u, partition 0, offset 8)", batch.describe(3));
      assertEquals("message 4 (topic u, partition 1, offset 9)", batch.describe(4));

      assertEquals(2, heap.position(), "the buffers are read, never moved");
      assertEquals(9, heap.limit());
      assertEquals(0, slice.position());
      assertEquals(5, slice.limit());
      assertEquals(2, direct.position());
      assertEquals(10, direct.limit());
      assertEquals(1, readOnly.position());
      assertEquals(5, readOnly.limit());
    }
  }

  @Test
  void aPresizedBatchFillsWithoutReallocatingThenStillGrows() {
    try (MessageBatch batch = new MessageBatch(12, 3)) {
      long dataAddress = batch.data().address();
      long offsetsAddress = batch.offsets().address();
      batch.add(ByteBuffer.wrap(bytes("abcd")), new Partition("t", 0), 0L)
          .add(bytes("efgh"), new Partition("t", 1), 1L)
          .add(ByteBuffer.wrap(bytes("ijkl")), new Partition("t", 2), 2L);
      assertEquals(dataAddress, batch.data().address(), "filled exactly to its size: the same payload buffer");
      assertEquals(offsetsAddress, batch.offsets().address(), "and the same offsets buffer");

      batch.add(bytes("mn")).add(ByteBuffer.wrap(bytes("op")), new Partition("t", 3), 4L);
      assertEquals(5, batch.size());
      assertEquals(16, batch.byteSize());
      assertArrayEquals(new long[] {0, 4, 8, 12, 14, 16},
          batch.offsets().asSlice(0, 6L * Long.BYTES).toArray(ValueLayout.JAVA_LONG));
      String[] payloads = {"abcd", "efgh", "ijkl", "mn", "op"};
      for (int i = 0; i < payloads.length; i++) {
        assertArrayEquals(bytes(payloads[i]), batch.payload(i));
      }
      assertEquals("message 2 (topic t, partition 2, offset 2)", batch.describe(2));
      assertEquals("message 3", batch.describe(3), "added without a source");
      assertNull(batch.source(3));
      assertEquals(-1, batch.position(3));
      assertEquals("message 4 (topic t, partition 3, offset 4)", batch.describe(4));

      batch.clear();
      batch.add(bytes("again"));
      assertEquals("message 0", batch.describe(0), "clear forgets the sources");
      assertNull(batch.source(0));
      assertArrayEquals(bytes("again"), batch.payload(0));
    }
    try (MessageBatch empty = new MessageBatch(0, 0)) {
      empty.add(ByteBuffer.wrap(bytes("x")), new Partition("t", 0), 5L).add((ByteBuffer) null, new Partition("t", 0), 6L);
      assertArrayEquals(bytes("x"), empty.payload(0));
      assertArrayEquals(new byte[0], empty.payload(1));
      assertEquals("message 1 (topic t, partition 0, offset 6)", empty.describe(1));
    }
    assertThrows(IllegalArgumentException.class, () -> new MessageBatch(-1, 10));
    assertThrows(IllegalArgumentException.class, () -> new MessageBatch(10, -1));
  }

  @Test
  void useAfterCloseThrows() {
    MessageBatch batch = new MessageBatch();
    batch.close();
    batch.close();
    assertThrows(IllegalStateException.class, () -> batch.add(bytes("x")));
    assertThrows(IllegalStateException.class, () -> batch.add(ByteBuffer.wrap(bytes("x")), new Partition("t", 0), 0L));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
