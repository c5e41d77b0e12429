package dev.floe.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServingPartitionsTest {
  @TempDir Path dir;

  @Test
  void namesUnknownTopicsAndNothingOnceEveryPartitionIsServed() throws Exception {
    try (LocalKafkaBroker kafka = LocalKafkaBroker.start(dir);
        Admin admin =
            Admin.create(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      kafka.createTopic("served", 3);
      Duration request = Duration.ofSeconds(2);

      assertEquals(
          List.of(new TopicPartition("missing", -1)),
          ServingPartitions.notServed(admin, List.of("served", "missing"), request));
      assertEquals(List.of(), ServingPartitions.notServed(admin, List.of("served"), request));

      IllegalStateException timeout =
          assertThrows(
              IllegalStateException.class,
              () -> ServingPartitions.await(admin, List.of("missing"), Duration.ofSeconds(1)));
      assertTrue(timeout.getMessage().contains("missing--1"), timeout.getMessage());
    }
  }
}
