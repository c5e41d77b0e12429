package dev.floe.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
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
      assertEquals(
          List.of(), unserved(bootstrap, "events"), "createTopic returns once all are served");
      consumer.subscribe(List.of("events"));

      produceExplained(kafka, producer, 0, 1_000);
      List<ConsumerRecord<String, String>> consumed =
          new ArrayList<>(TestClients.poll(consumer, 1_000, Duration.ofSeconds(30)));
      consumer.commitSync();

      long pidBefore = kafka.pid().orElseThrow();
      kafka.restart();
      assertEquals(bootstrap, kafka.bootstrapServers(), "same address after a restart");
      assertTrue(kafka.pid().orElseThrow() != pidBefore, "a new broker process");
      assertEquals(List.of(), unserved(bootstrap, "events"), "restart returns once all are served");

      // The same producer and consumer instances carry on against the restarted broker.
      produceExplained(kafka, producer, 1_000, 2_000);
      consumed.addAll(TestClients.poll(consumer, 1_000, Duration.ofSeconds(45)));

      assertEquals(TestClients.range(0, 2_000), TestClients.sortedSequence(consumed));
      assertEquals(
          TestClients.range(0, 2_000),
          TestClients.sortedSequence(TestClients.readAll(bootstrap, "events", 3, 2_000)));
    }
  }

  /**
   * Eligible leader replicas are off (they once left a partition without a leader after a
   * restart), also in a directory whose broker had them on: the start turns them off again.
   */
  @Test
  void eligibleLeaderReplicasStayOffAcrossRestarts() throws Exception {
    try (LocalKafkaBroker kafka = LocalKafkaBroker.start(dir);
        Admin admin = admin(kafka.bootstrapServers())) {
      kafka.createTopic("events", 2);
      assertEquals(0, awaitElrLevel(admin, 0), "off in a newly formatted directory");

      admin
          .updateFeatures(
              Map.of(
                  LocalKafkaBroker.ELR_FEATURE,
                  new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.UPGRADE)),
              new UpdateFeaturesOptions())
          .all()
          .get();
      assertEquals(1, awaitElrLevel(admin, 1), "turned on, as Kafka 4.1 formats directories");

      kafka.restart();
      assertEquals(0, awaitElrLevel(admin, 0), "turned off by the start");
      assertEquals(List.of(), unserved(kafka.bootstrapServers(), "events"));
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

  private static Admin admin(String bootstrap) {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }

  /**
   * The finalized level of the eligible leader replicas feature (0 when not finalized), once it is
   * {@code expected} or after 10 s: a feature update reaches the broker's metadata a moment after
   * the controller accepted it.
   */
  private static short awaitElrLevel(Admin admin, int expected) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      FinalizedVersionRange range =
          admin
              .describeFeatures()
              .featureMetadata()
              .get()
              .finalizedFeatures()
              .get(LocalKafkaBroker.ELR_FEATURE);
      short level = range == null ? 0 : range.maxVersionLevel();
      if (level == expected || System.nanoTime() > deadline) {
        return level;
      }
      Thread.sleep(100);
    }
  }

  /**
   * The partitions of {@code topic} whose leader does not answer a ListOffsets request at the
   * first try (the admin client's retry backoff is longer than the request's timeout). Only a
   * replica that leads answers it: a leader named in the metadata is not enough.
   */
  private static List<Integer> unserved(String bootstrap, String topic) {
    Map<String, Object> config =
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 10_000,
            AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 10_000);
    try (Admin admin = Admin.create(config)) {
      Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
      for (TopicPartitionInfo info :
          admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()) {
        latest.put(new TopicPartition(topic, info.partition()), OffsetSpec.latest());
      }
      ListOffsetsResult offsets =
          admin.listOffsets(latest, new ListOffsetsOptions().timeoutMs(5_000));
      List<Integer> unserved = new ArrayList<>();
      for (TopicPartition partition : latest.keySet()) {
        try {
          offsets.partitionResult(partition).get();
        } catch (ExecutionException e) {
          unserved.add(partition.partition());
        }
      }
      return unserved;
    } catch (InterruptedException | ExecutionException e) {
      throw new AssertionError("cannot describe " + topic, e);
    }
  }

  /**
   * Produces values {@code from..to-1} to "events"; a failure carries the end of the broker's
   * log, since the broker's directory is gone once the test ends.
   */
  private static void produceExplained(
      LocalKafkaBroker kafka, KafkaProducer<String, String> producer, int from, int to) {
    try {
      TestClients.produce(producer, "events", from, to);
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage() + "; end of " + kafka.brokerLog() + ":\n"
              + LogTail.of(kafka.brokerLog(), 80),
          e);
    }
  }
}
