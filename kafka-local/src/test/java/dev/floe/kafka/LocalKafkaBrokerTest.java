package dev.floe.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** One broker for the class: produce and consume through it, and the guards around it. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LocalKafkaBrokerTest {
  private Path dir;
  private LocalKafkaBroker kafka;

  @BeforeAll
  void start(@TempDir Path tempDir) {
    dir = tempDir;
    kafka = LocalKafkaBroker.start(dir);
  }

  @AfterAll
  void stop() {
    kafka.close();
  }

  @Test
  void recordsProducedToAMultiPartitionTopicAreConsumedBackExactly() {
    int partitions = 4;
    int count = 20_000;
    kafka.createTopic("events", partitions);
    try (KafkaProducer<String, String> producer = TestClients.producer(kafka.bootstrapServers())) {
      TestClients.produce(producer, "events", 0, count);
    }

    List<ConsumerRecord<String, String>> records =
        TestClients.readAll(kafka.bootstrapServers(), "events", partitions, count);

    assertEquals(TestClients.range(0, count), TestClients.sortedSequence(records));
    Map<Integer, Integer> lastPerPartition = new HashMap<>();
    for (ConsumerRecord<String, String> record : records) {
      int sequence = Integer.parseInt(record.value().substring(1));
      assertEquals("k" + sequence, record.key());
      Integer previous = lastPerPartition.put(record.partition(), sequence);
      assertTrue(previous == null || previous < sequence, "send order within a partition");
    }
    assertEquals(partitions, lastPerPartition.size(), "records in every partition");
  }

  @Test
  void aSecondBrokerOnTheSameDirectoryIsRefused() {
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> LocalKafkaBroker.start(dir));
    assertTrue(e.getMessage().contains("already runs in " + dir), e.getMessage());
  }

  @Test
  void theDataDirectoryHoldsTheLogPidAndAddress() throws Exception {
    assertTrue(Files.readString(kafka.brokerLog()).contains("Kafka Server started"));
    assertEquals(
        String.valueOf(kafka.pid().orElseThrow()),
        Files.readString(dir.resolve("broker.pid")).strip());
    assertEquals(
        kafka.bootstrapServers(), Files.readString(dir.resolve("bootstrap.servers")).strip());
    assertTrue(kafka.bootstrapServers().startsWith("127.0.0.1:"), kafka.bootstrapServers());
  }

  @Test
  void creatingAnExistingTopicFails() {
    kafka.createTopic("twice", 1);
    assertThrows(IllegalStateException.class, () -> kafka.createTopic("twice", 1));
  }

  @Test
  void aMissingClasspathResourceSaysHowToRebuild() {
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> BrokerClasspath.load("no-such.classpath"));
    assertTrue(e.getMessage().contains("install -pl kafka-local"), e.getMessage());
  }
}
