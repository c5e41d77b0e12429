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
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two distributed Connect workers, 4 tasks on one table, while a producer keeps writing the topic:
 * a worker is SIGKILLed mid-run and started again, its tasks move to the other and back, and the
 * table still ends up equal to the topic: no loss, no duplicate.
 *
 * <p>CI kills once; {@code scripts/connect-crash-test} kills more often ({@code
 * -Dfloe.connect.kills}, {@code -Dfloe.connect.events}), alternating between the workers.
 */
class DistributedWorkersTest {
  /** The least time between kills; each also waits for a commit since the last one (the tasks recovered). */
  private static final Duration BETWEEN_KILLS = Duration.ofSeconds(8);
  /** How long the producer writes per kill. */
  private static final Duration PRODUCING_PER_KILL = Duration.ofSeconds(18);
  @TempDir Path dir;

  @Test
  void workersKilledMidRunLoseAndDuplicateNothing() throws Exception {
    int kills = Integer.getInteger("floe.connect.kills", 1);
    int events = Integer.getInteger("floe.connect.events", 100_000);
    try (LocalKafkaBroker kafka = LocalKafkaBroker.start(dir.resolve("broker"))) {
      Path warehouse = dir.resolve("warehouse");
      Catalog catalog = Catalogs.embedded(warehouse);
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
      kafka.createTopic("events", 4);
      TableIdentifier id = TableIdentifier.of("db", "events");
      Table table = ConnectFixture.createTable(catalog, id, ConnectFixture.NEXMARK, "bid.auction");
      List<byte[]> messages = ConnectFixture.nexmark(5, events);
      LocalConnectWorker[] workers = {distributed(kafka, "a-0").start(), distributed(kafka, "b-0").start()};
      Thread producer = null;
      try {
        Map<String, String> config = ConnectFixture.config(FLOE, "events", id, warehouse);
        config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.put("tasks.max", "4");
        config.put("floe.commit.records", "2000");
        config.put("consumer.override.max.poll.records", "500");
        workers[0].createConnector("floe-distributed", config);
        // Written over the whole run, so every kill meets records in flight.
        producer = Thread.ofPlatform().name("paced-producer").start(() ->
            producePaced(kafka.bootstrapServers(), messages, PRODUCING_PER_KILL.multipliedBy(kills + 1)));
        long rowsAtLastKill = 0;
        for (int kill = 1; kill <= kills; kill++) {
          Thread.sleep(BETWEEN_KILLS.toMillis());
          long recovered = System.nanoTime() + Duration.ofMinutes(1).toNanos();
          long rows;
          while ((rows = ConnectFixture.rows(table)) <= rowsAtLastKill) {
            assertTrue(System.nanoTime() < recovered, "no commit in a minute since kill " + (kill - 1) + " ("
                + rows + " rows); see " + workers[0].log());
            Thread.sleep(100);
          }
          assertTrue(rows < events, "kill " + kill + " came after the end: " + rows + " rows");
          int victim = kill % 2;
          workers[victim].kill();
          System.out.printf("connect crash test: kill %d of worker %s at %d committed rows%n", kill, "ab".charAt(victim), rows);
          rowsAtLastKill = rows;
          workers[victim] = distributed(kafka, "ab".charAt(victim) + "-" + kill).start();
        }
        producer.join();
        ConnectFixture.awaitRows(workers[0], "floe-distributed", table, events, Duration.ofMinutes(4));
        Thread.sleep(2000);
        assertEquals(events, ConnectFixture.rows(table));
        assertEquals(ConnectFixture.nexmarkFingerprint(5, events), TableFingerprint.of(table));
        System.out.printf("connect crash test: %d kills, %d events, table exact%n", kills, events);
        workers[0].deleteConnector("floe-distributed");
      } finally {
        for (LocalConnectWorker worker : workers) {
          worker.close();
        }
        if (producer != null) {
          producer.join();
        }
      }
      if (catalog instanceof AutoCloseable c) {
        c.close();
      }
    }
  }

  /** Sends the messages in 20 slices, spread evenly over {@code duration}. */
  private static void producePaced(String bootstrap, List<byte[]> messages, Duration duration) {
    int slices = 20;
    long start = System.nanoTime();
    for (int s = 0; s < slices; s++) {
      List<byte[]> slice = messages.subList(messages.size() * s / slices, messages.size() * (s + 1) / slices);
      ConnectFixture.produce(bootstrap, "events", 4, slice);
      long due = start + duration.toNanos() * (s + 1) / slices;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        try {
          Thread.sleep(wait / 1_000_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
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
        .workerProperty("offset.flush.interval.ms", "1000")
        // The dead worker's task consumers leave their group after this long (the consumer's default
        // is 45 s, during which the group cannot rebalance and every task waits).
        .workerProperty("consumer.session.timeout.ms", "6000")
        .workerProperty("consumer.heartbeat.interval.ms", "1000");
  }
}
