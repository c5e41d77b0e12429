package dev.floe.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class MessageBatchTest {
  @Test
  void packsAKafkaPollWithEachRecordsPosition() {
    TopicPartition p0 = new TopicPartition("events", 0);
    TopicPartition p1 = new TopicPartition("events", 1);
    ConsumerRecords<byte[], byte[]> poll =
        new ConsumerRecords<>(
            Map.of(
                p0, List.of(new ConsumerRecord<>("events", 0, 10L, null, bytes("{\"a\":1}"))),
                p1, List.of(
                    new ConsumerRecord<>("events", 1, 7L, null, bytes("{\"a\":2}")),
                    new ConsumerRecord<>("events", 1, 8L, null, (byte[]) null))),
            Map.of());
    try (MessageBatch batch = new MessageBatch()) {
      assertEquals(3, batch.addAll(poll));
      assertEquals(3, batch.size());
      assertEquals(14, batch.byteSize());
      for (int i = 0; i < 3; i++) {
        String where = batch.describe(i);
        int partition = batch.partition(i);
        long offset = batch.kafkaOffset(i);
        assertEquals("message " + i + " (topic events, partition " + partition + ", offset " + offset + ")", where);
      }
      int tombstone = batch.kafkaOffset(0) == 8 ? 0 : batch.kafkaOffset(1) == 8 ? 1 : 2;
      assertArrayEquals(new byte[0], batch.payload(tombstone), "a null value packs as an empty message");
    }
  }

  @Test
  void growsPastItsInitialCapacityAndKeepsEveryByte() {
    try (MessageBatch batch = new MessageBatch()) {
      byte[] big = new byte[3 << 20];
      big[big.length - 1] = 42;
      for (int i = 0; i < 5000; i++) {
        batch.add(bytes("m" + i), "t", 0, i);
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
  void useAfterCloseThrows() {
    MessageBatch batch = new MessageBatch();
    batch.close();
    batch.close();
    assertThrows(IllegalStateException.class, () -> batch.add(bytes("x")));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
