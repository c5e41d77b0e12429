package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static dev.floe.kafka.sink.SinkFixture.seqById;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The dead-letter topic gets each bad record as it arrived -- key, value, timestamp, headers, a
 * tombstone as a tombstone (upsert mode: in append mode tombstones are skipped) -- from both places
 * records go bad (the decoder, and the router), and
 * records far larger than a producer's default request; a record that cannot be dead-lettered
 * stops the sink with a message that says how to fix it.
 */
class DeadLetterTest extends BrokerAndCatalog {
  private static final int FOUR_MIB = 4 << 20;

  DeadLetterTest() {
    super("t");
  }

  private SinkConfig.Builder sink(String group, String deadLetterTopic) {
    return SinkConfig.builder(catalog, kafka.bootstrapServers(), group)
        .createTables(KEYED, PartitionSpec.unpartitioned(), V2)
        .badRecords(BadRecordPolicy.DEAD_LETTER, deadLetterTopic)
        .stopAtEnd(true);
  }

  private static KafkaProducer<byte[], byte[]> producer() {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, FOUR_MIB);
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return new KafkaProducer<>(config);
  }

  private static final long T1 = 1_600_000_000_000L;

  /** offsets: 0 good, 1 "not json" with key, header, timestamp, 2 a keyed tombstone, 3 good. */
  private static void produceMixed(String topic) {
    RecordHeaders headers = new RecordHeaders();
    headers.add("trace", "t-1".getBytes(StandardCharsets.UTF_8));
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      producer.send(new ProducerRecord<>(topic, 0, null, keyed(0, 0, "k")));
      producer.send(new ProducerRecord<>(topic, 0, T1, utf8("k1"), utf8("not json"), headers));
      producer.send(new ProducerRecord<>(topic, 0, T1 + 1, utf8("k2"), (byte[]) null));
      producer.send(new ProducerRecord<>(topic, 0, null, keyed(3, 3, "k")));
    }
  }

  @Test
  void deadLettersKeepKeyTimestampHeadersAndTombstonesFromTheDecoderAndTheRouter() throws Exception {
    kafka.createTopic("mixed", 1);
    kafka.createTopic("mixed-dead", 1);
    produceMixed("mixed");
    // The decoder rejects offsets 1 and 2 (a tombstone's key that is not a JSON object of the id) ...
    try (KafkaIcebergSink sink = new KafkaIcebergSink(
        sink("decoded", "mixed-dead").upsert(true).route("mixed", TableIdentifier.of("t", "decoded")).build())) {
      sink.run();
      assertEquals(2, sink.metrics().getDeadLettered());
    }
    // ... and, routing by a field, the router does (no value to route by).
    try (KafkaIcebergSink sink = new KafkaIcebergSink(
        sink("routed", "mixed-dead").upsert(true).topics(List.of("mixed")).routeField("kind")
            .routeValue("k", TableIdentifier.of("t", "routed")).build())) {
      sink.run();
      assertEquals(2, sink.metrics().getDeadLettered());
    }
    assertEquals(Map.of(0L, 0L, 3L, 3L), seqById(catalog.loadTable(TableIdentifier.of("t", "decoded"))));
    assertEquals(Map.of(0L, 0L, 3L, 3L), seqById(catalog.loadTable(TableIdentifier.of("t", "routed"))));

    List<ConsumerRecord<byte[], byte[]>> dead = SinkFixture.readAll(kafka.bootstrapServers(), "mixed-dead", 4);
    assertEquals(4, dead.size());
    for (int i = 0; i < 4; i += 2) {
      ConsumerRecord<byte[], byte[]> bad = dead.get(i);
      assertArrayEquals(utf8("k1"), bad.key());
      assertArrayEquals(utf8("not json"), bad.value());
      assertEquals(T1, bad.timestamp());
      assertEquals("t-1", header(bad, "trace"));
      assertEquals("1", header(bad, DeadLetters.SOURCE_OFFSET));
      ConsumerRecord<byte[], byte[]> tombstone = dead.get(i + 1);
      assertArrayEquals(utf8("k2"), tombstone.key());
      assertNull(tombstone.value(), "a tombstone stays a tombstone");
      assertEquals(T1 + 1, tombstone.timestamp());
      assertEquals("2", header(tombstone, DeadLetters.SOURCE_OFFSET));
    }
    // the decoder's reason says it was the key that did not decode, not a value
    assertTrue(header(dead.get(1), DeadLetters.ERROR).startsWith("the tombstone's key: "), header(dead.get(1), DeadLetters.ERROR));
  }

  /** A value of {@code bytes} printable characters that compresses poorly: not JSON, so a bad record. */
  private static byte[] bigBadValue(int bytes) {
    byte[] out = new byte[bytes];
    Random random = new Random(3);
    for (int i = 0; i < bytes; i++) {
      out[i] = (byte) ('!' + random.nextInt(94));
    }
    return out;
  }

  @Test
  void aDeadLetterOfSeveralMegabytesIsWritten() throws Exception {
    Map<String, String> fourMib = Map.of("max.message.bytes", Integer.toString(FOUR_MIB));
    kafka.createTopic("big", 1, fourMib);
    kafka.createTopic("big-dead", 1, fourMib);
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      producer.send(new ProducerRecord<>("big", 0, null, keyed(0, 0, "k")));
    }
    deadLettersOneLargeRecord("big", "big-dead");
    assertEquals(Map.of(0L, 0L), seqById(catalog.loadTable(TableIdentifier.of("t", "big"))));
  }

  /**
   * A dead-letter topic the sink creates takes what the sink's producer sends: with the cluster's
   * default max.message.bytes (about 1 MiB), a 2 MiB bad record stopped the sink at every restart
   * (helper-83).
   */
  @Test
  void aDeadLetterTopicTheSinkCreatesTakesALargeBadRecord() throws Exception {
    kafka.createTopic("large", 1, Map.of("max.message.bytes", Integer.toString(FOUR_MIB)));
    deadLettersOneLargeRecord("large", "large-dead-made");
  }

  /**
   * Produces a 2 MiB bad record to {@code topic} (after what is there), runs a sink of it into table
   * t.{@code topic} and checks that its one dead letter in {@code deadTopic} is that record.
   */
  private void deadLettersOneLargeRecord(String topic, String deadTopic) throws Exception {
    byte[] big = bigBadValue(2 << 20);
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      producer.send(new ProducerRecord<>(topic, 0, null, big));
    }
    try (KafkaIcebergSink sink = new KafkaIcebergSink(
        sink(topic, deadTopic).route(topic, TableIdentifier.of("t", topic)).build())) {
      sink.run();
      assertEquals(1, sink.metrics().getDeadLettered());
    }
    List<ConsumerRecord<byte[], byte[]>> dead = SinkFixture.readAll(kafka.bootstrapServers(), deadTopic, 1);
    assertEquals(1, dead.size());
    assertArrayEquals(big, dead.get(0).value());
  }

  @Test
  void aDeadLetterTheTopicOrProducerRefusesStopsTheSinkSayingHowToFixIt() {
    kafka.createTopic("huge", 1, Map.of("max.message.bytes", Integer.toString(FOUR_MIB)));
    kafka.createTopic("huge-dead", 1); // the broker's default: about 1 MiB
    kafka.createTopic("huge-dead-4m", 1, Map.of("max.message.bytes", Integer.toString(FOUR_MIB)));
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      producer.send(new ProducerRecord<>("huge", 0, null, bigBadValue(2 << 20)));
    }
    try (KafkaIcebergSink sink = new KafkaIcebergSink(
        sink("huge", "huge-dead").route("huge", TableIdentifier.of("t", "huge")).build())) {
      SinkException e = assertThrows(SinkException.class, sink::run);
      assertTrue(e.getMessage().contains("topic huge, partition 0, offset 0"), e.getMessage());
      assertTrue(e.getMessage().contains("max.message.bytes"), e.getMessage());
    }
    // producer.-prefixed settings reach the dead-letter producer: here a request size too small.
    try (KafkaIcebergSink sink = new KafkaIcebergSink(
        sink("huge-4m", "huge-dead-4m").route("huge", TableIdentifier.of("t", "huge_4m"))
            .consumerProperty("producer.max.request.size", 1 << 20).build())) {
      SinkException e = assertThrows(SinkException.class, sink::run);
      assertTrue(e.getMessage().contains("producer.max.request.size"), e.getMessage());
    }
    assertNull(catalog.loadTable(TableIdentifier.of("t", "huge")).currentSnapshot(), "nothing past it committed");
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
    return new String(r.headers().lastHeader(key).value(), StandardCharsets.UTF_8);
  }
}
