package dev.floe.connect;

import static dev.floe.connect.ConnectFixture.FLOE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.LocalConnectWorker;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.testing.TableFingerprint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two distributed Connect workers, 4 tasks on one table; one worker is SIGKILLed mid-run, its
 * tasks move to the other, and the table still ends up equal to the topic: no loss, no duplicate.
 */
class DistributedWorkersTest {
  @TempDir Path dir;

  @Test
  void aWorkerKilledMidRunLosesAndDuplicatesNothing() throws Exception {
    int events = 100_000;
    try (LocalKafkaBroker kafka = LocalKafkaBroker.start(dir.resolve("broker"))) {
      Path warehouse = dir.resolve("warehouse");
      Catalog catalog = Catalogs.embedded(warehouse);
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
      kafka.createTopic("events", 4);
      ConnectFixture.produce(kafka.bootstrapServers(), "events", 4, ConnectFixture.nexmark(5, events));
      TableIdentifier id = TableIdentifier.of("db", "events");
      Table table = ConnectFixture.createTable(catalog, id, ConnectFixture.NEXMARK, "bid.auction");

      try (LocalConnectWorker first = distributed(kafka, "a").start();
          LocalConnectWorker second = distributed(kafka, "b").start()) {
        Map<String, String> config = ConnectFixture.config(FLOE, "events", id, warehouse);
        config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.put("tasks.max", "4");
        config.put("floe.commit.records", "2000");
        config.put("consumer.override.max.poll.records", "500");
        first.createConnector("floe-distributed", config);
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (ConnectFixture.rows(table) < events / 5) {
          assertTrue(System.nanoTime() < deadline, "no progress before the kill; see " + first.log());
          Thread.sleep(100);
        }
        long before = ConnectFixture.rows(table);
        second.kill();
        assertTrue(before < events, "the kill came before the end: " + before + " rows");
        ConnectFixture.awaitRows(first, "floe-distributed", table, events, Duration.ofMinutes(4));
        Thread.sleep(2000);
        assertEquals(events, ConnectFixture.rows(table));
        assertEquals(ConnectFixture.nexmarkFingerprint(5, events), TableFingerprint.of(table));
        first.deleteConnector("floe-distributed");
      }
      if (catalog instanceof AutoCloseable c) {
        c.close();
      }
    }
  }

  private LocalConnectWorker.Builder distributed(LocalKafkaBroker kafka, String name) {
    return ConnectFixture.worker(dir.resolve("worker-" + name), kafka.bootstrapServers())
        .distributed("floe-connect-cluster")
        // A dead worker's tasks move after this long (Connect's default waits 5 minutes for it to return).
        .workerProperty("scheduled.rebalance.max.delay.ms", "3000")
        .workerProperty("session.timeout.ms", "6000")
        .workerProperty("heartbeat.interval.ms", "1000")
        .workerProperty("offset.flush.interval.ms", "1000");
  }
}
