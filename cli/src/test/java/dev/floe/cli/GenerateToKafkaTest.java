package dev.floe.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.floe.corpus.NexmarkGenerator;
import dev.floe.corpus.NexmarkJson;
import dev.floe.corpus.SyntheticGenerator;
import dev.floe.kafka.LocalKafkaBroker;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code floe generate --bootstrap}: a real broker, the CLI as its own process, the topic read back. */
class GenerateToKafkaTest {
  @TempDir static Path brokerDir;
  private static LocalKafkaBroker kafka;

  @TempDir Path dir;

  @BeforeAll
  static void startBroker() {
    kafka = LocalKafkaBroker.start(brokerDir);
  }

  @AfterAll
  static void stopBroker() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void nexmarkPartitionsHoldExactlyTheGeneratorsEventsInOrderAndMatchTheFileOutput() throws Exception {
    int events = 20_000;
    CliProcess.Result r =
        CliProcess.run(dir, "generate", "nexmark", "--events", "" + events, "--seed", "7",
            "--bootstrap", kafka.bootstrapServers(), "--topic", "t", "--partitions", "4");
    assertEquals(0, r.exitCode(), r.err());

    List<List<byte[]>> topic = readTopic("t", 4, events);
    List<List<byte[]>> expected = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    NexmarkGenerator generator = new NexmarkGenerator(7);
    long bytes = 0;
    for (int i = 0; i < events; i++) {
      byte[] value = NexmarkJson.toBytes(generator.next());
      expected.get(i % 4).add(value);
      bytes += value.length;
    }
    for (int p = 0; p < 4; p++) {
      assertSameValues(expected.get(p), topic.get(p), "partition " + p);
    }

    assertTrue(r.out().startsWith("floe generate: nexmark events (seed 7) -> Kafka topic t at "
        + kafka.bootstrapServers() + " (created)\n"), r.out());
    assertTrue(r.out().contains("events         20,000\n"), r.out());
    assertTrue(r.out().contains(String.format("bytes          %,d of JSON values (compression lz4)%n", bytes)), r.out());
    assertTrue(r.out().contains("partitions     4 (event i -> partition i mod 4)\n"), r.out());

    // The file output of the same seed is the topic read in event order, one line per record.
    CliProcess.Result file =
        CliProcess.run(dir, "generate", "nexmark", "--events", "" + events, "--seed", "7", "--output", "events.jsonl");
    assertEquals(0, file.exitCode(), file.err());
    ByteArrayOutputStream inEventOrder = new ByteArrayOutputStream();
    for (int i = 0; i < events; i++) {
      inEventOrder.write(topic.get(i % 4).get(i / 4));
      inEventOrder.write('\n');
    }
    assertArrayEquals(Files.readAllBytes(dir.resolve("events.jsonl")), inEventOrder.toByteArray());
  }

  @Test
  void anExistingTopicKeepsItsPartitionsAndAnotherCountIsRefused() throws Exception {
    kafka.createTopic("three", 3);
    CliProcess.Result refused =
        CliProcess.run(dir, "generate", "synthetic", "--events", "30", "--bootstrap", kafka.bootstrapServers(),
            "--topic", "three", "--partitions", "4");
    assertEquals(FloeCli.EXIT_FAILED, refused.exitCode());
    assertEquals(
        List.of("floe generate: topic three has 3 partitions, not 4 (--partitions): leave --partitions out or use another topic"),
        refused.errLines());
    assertEquals("", refused.out());

    CliProcess.Result r =
        CliProcess.run(dir, "generate", "synthetic", "--events", "30", "--seed", "3", "--bootstrap",
            kafka.bootstrapServers(), "--topic", "three", "--compression", "none");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("(existing)\n"), r.out());
    assertTrue(r.out().contains("partitions     3 (event i -> partition i mod 3)\n"), r.out());
    List<List<byte[]>> topic = readTopic("three", 3, 30); // nothing from the refused run
    SyntheticGenerator generator = new SyntheticGenerator(3);
    for (int i = 0; i < 30; i++) {
      assertArrayEquals(generator.nextBytes(), topic.get(i % 3).get(i / 3), "event " + i);
    }
  }

  @Test
  void anUnreachableBrokerIsOneClearLineWithinTheTimeout() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort(); // free once closed: nothing listens there
    }
    long started = System.nanoTime();
    CliProcess.Result r =
        CliProcess.run(dir, "generate", "nexmark", "--events", "10", "--bootstrap", "127.0.0.1:" + port,
            "--topic", "t", "--kafka-timeout", "2s"); // as floe sink takes it (helper-61: "2s" was refused)
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertEquals(FloeCli.EXIT_FAILED, r.exitCode(), r.err());
    assertEquals(
        List.of("floe generate: no answer from Kafka at 127.0.0.1:" + port
            + " within 2 s (is a broker running there? --kafka-timeout sets the wait)"),
        r.errLines());
    assertEquals("", r.out());
    // JVM start-up plus the 2 s wait: far from a hang, even on a loaded machine.
    assertTrue(took.compareTo(Duration.ofSeconds(30)) < 0, "took " + took);
  }

  @Test
  void kafkaFlagsThatDoNotGoTogetherAreUsageErrors() throws Exception {
    CliProcess.Result noTopic = CliProcess.run(dir, "generate", "nexmark", "--events", "1", "--bootstrap", "127.0.0.1:9");
    assertEquals(FloeCli.EXIT_USAGE, noTopic.exitCode());
    assertEquals(List.of("floe generate: --bootstrap needs --topic (see 'floe generate --help')"), noTopic.errLines());

    CliProcess.Result both =
        CliProcess.run(dir, "generate", "nexmark", "--events", "1", "--bootstrap", "127.0.0.1:9", "--topic", "t",
            "--output", "x.jsonl");
    assertEquals(FloeCli.EXIT_USAGE, both.exitCode());
    assertTrue(both.err().contains("--output and --bootstrap exclude each other"), both.err());
    assertEquals(List.of(), Files.list(dir).toList(), "nothing written");

    CliProcess.Result badTimeout = CliProcess.run(dir, "generate", "nexmark", "--events", "1", "--bootstrap",
        "127.0.0.1:9", "--topic", "t", "--kafka-timeout", "soon");
    assertEquals(FloeCli.EXIT_USAGE, badTimeout.exitCode());
    assertTrue(badTimeout.err().contains("--kafka-timeout 'soon' is not a duration (e.g. 10s, 500ms, 2m)"), badTimeout.err());
  }

  /** Every record of {@code topic}, by partition in offset order; exactly {@code count} in all. */
  private static List<List<byte[]>> readTopic(String topic, int partitions, int count) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> all = new ArrayList<>();
      List<List<byte[]>> values = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        all.add(new TopicPartition(topic, p));
        values.add(new ArrayList<>());
      }
      consumer.assign(all);
      consumer.seekToBeginning(all);
      long end = consumer.endOffsets(all).values().stream().mapToLong(Long::longValue).sum();
      assertEquals(count, end, "records in " + topic);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      int read = 0;
      while (read < count) {
        if (System.nanoTime() > deadline) {
          fail("read " + read + " of " + count + " records of " + topic);
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          List<byte[]> partition = values.get(record.partition());
          assertEquals(partition.size(), record.offset(), "offsets of partition " + record.partition());
          assertEquals(null, record.key(), "records have no key");
          partition.add(record.value());
          read++;
        }
      }
      return values;
    }
  }

  private static void assertSameValues(List<byte[]> expected, List<byte[]> actual, String where) {
    assertEquals(expected.size(), actual.size(), where + ": records");
    for (int i = 0; i < expected.size(); i++) {
      if (!Arrays.equals(expected.get(i), actual.get(i))) {
        fail(where + ", offset " + i + ": expected " + new String(expected.get(i), java.nio.charset.StandardCharsets.UTF_8)
            + " but was " + new String(actual.get(i), java.nio.charset.StandardCharsets.UTF_8));
      }
    }
  }
}
