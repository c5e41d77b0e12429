package dev.floe.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker goes away under running clients: a clean restart, and a SIGKILL. */
class BrokerRestartTest {
  @TempDir Path dir;

  @Test
  void recordsProducedBeforeAndAfterARestartAreAllConsumed() {
    try (LocalKafkaBroker kafka = LocalKafkaBroker.start(dir);
        KafkaProducer<String, String> producer = TestClients.producer(kafka.bootstrapServers());
        KafkaConsumer<String, String> consumer =
            TestClients.consumer(kafka.bootstrapServers(), "restart-group")) {
      kafka.createTopic("events", 3);
      String bootstrap = kafka.bootstrapServers();
      consumer.subscribe(List.of("events"));

      TestClients.produce(producer, "events", 0, 1_000);
      List<ConsumerRecord<String, String>> consumed =
          new ArrayList<>(TestClients.poll(consumer, 1_000, Duration.ofSeconds(30)));
      consumer.commitSync();

      long pidBefore = kafka.pid().orElseThrow();
      kafka.restart();
      assertEquals(bootstrap, kafka.bootstrapServers(), "same address after a restart");
      assertTrue(kafka.pid().orElseThrow() != pidBefore, "a new broker process");

      // The same producer and consumer instances carry on against the restarted broker.
      TestClients.produce(producer, "events", 1_000, 2_000);
      consumed.addAll(TestClients.poll(consumer, 1_000, Duration.ofSeconds(45)));

      assertEquals(TestClients.range(0, 2_000), TestClients.sortedSequence(consumed));
      assertEquals(
          TestClients.range(0, 2_000),
          TestClients.sortedSequence(TestClients.readAll(bootstrap, "events", 3, 2_000)));
    }
  }

  @Test
  void aKilledBrokerStartedAgainOnItsDirectoryKeepsCommittedData() throws Exception {
    String bootstrap;
    Map<TopicPartition, OffsetAndMetadata> committed;
    LocalKafkaBroker first = LocalKafkaBroker.start(dir);
    try (KafkaProducer<String, String> producer = TestClients.producer(first.bootstrapServers());
        KafkaConsumer<String, String> consumer =
            TestClients.consumer(first.bootstrapServers(), "kill-group")) {
      bootstrap = first.bootstrapServers();
      first.createTopic("events", 2);
      TestClients.produce(producer, "events", 0, 1_000);
      consumer.subscribe(List.of("events"));
      TestClients.poll(consumer, 1_000, Duration.ofSeconds(30));
      consumer.commitSync();
      committed = consumer.committed(consumer.assignment());
      // Acknowledged by the broker but not read by the group yet.
      TestClients.produce(producer, "events", 1_000, 1_500);
    }
    first.kill();
    assertFalse(first.isRunning());
    first.close();

    try (LocalKafkaBroker second = LocalKafkaBroker.start(dir)) {
      assertEquals(bootstrap, second.bootstrapServers(), "the ports of the last run, reused");
      assertEquals(
          TestClients.range(0, 1_500),
          TestClients.sortedSequence(TestClients.readAll(bootstrap, "events", 2, 1_500)));
      try (Admin admin =
          Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
        assertEquals(
            committed,
            admin.listConsumerGroupOffsets("kill-group").partitionsToOffsetAndMetadata().get());
      }
      try (KafkaConsumer<String, String> consumer =
          TestClients.consumer(bootstrap, "kill-group")) {
        consumer.subscribe(List.of("events"));
        assertEquals(
            TestClients.range(1_000, 1_500),
            TestClients.sortedSequence(TestClients.poll(consumer, 500, Duration.ofSeconds(30))));
      }
    }
  }
}
