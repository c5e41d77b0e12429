package dev.floe.connect;

import static dev.floe.connect.ConnectFixture.FLOE;
import static dev.floe.connect.ConnectFixture.awaitRows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.floe.iceberg.Catalogs;
import dev.floe.iceberg.s3.LoopbackS3Server;
import dev.floe.kafka.LocalConnectWorker;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.testing.TableFingerprint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * floe's connector on object storage (an S3-compatible server on loopback, Iceberg's S3FileIO from
 * iceberg-aws, failsafe and iceberg-aws-bundle added to the plugin folder as a user adds them, a JDBC catalog
 * whose warehouse is in the store) on a real standalone worker, while the store answers writes 503. Before,
 * the task failed at the first failed upload and waited for someone to restart it (the complaint
 * Iceberg's connector gets); now it pauses its partitions, waits, and reads them again from the
 * tables, and the table equals the topic. An outage past {@code floe.storage.retry.timeout.ms}
 * fails the task saying so, and a restart completes the table.
 */
class StorageOutageWorkerTest {
  private static final String BUCKET = "floe-warehouse";
  private static final int HALF = 2_000;
  @TempDir static Path dir;
  static LocalKafkaBroker kafka;
  static LoopbackS3Server s3;
  static Map<String, String> catalogProperties;
  static Catalog catalog;
  static LocalConnectWorker worker;

  @BeforeAll
  static void start() throws Exception {
    kafka = LocalKafkaBroker.start(dir.resolve("broker"));
    s3 = LoopbackS3Server.start(dir.resolve("store"), BUCKET);
    catalogProperties = new HashMap<>(s3.jdbcCatalogProperties(dir.resolve("catalog.db")));
    // The SDK's own retries kept short: the outage is the task's to ride out, not the client's.
    catalogProperties.put("s3.retry.num-retries", "1");
    catalogProperties.put("s3.retry.min-wait-ms", "100");
    catalogProperties.put("s3.retry.max-wait-ms", "200");
    catalog = Catalogs.load("iceberg", catalogProperties); // the connector's catalog name
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("s3"));
    worker = ConnectFixture.worker(dir.resolve("worker"), kafka.bootstrapServers()).pluginPath(pluginWithS3()).start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (worker != null) {
      worker.close();
    }
    if (catalog instanceof AutoCloseable c) {
      c.close();
    }
    if (s3 != null) {
      s3.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void anOutageOfTheStoreIsRiddenOutWithoutFailingTheTask() throws Exception {
    List<byte[]> events = ConnectFixture.nexmark(5, 2 * HALF);
    Table table = createTopicAndTable("ridden-out");
    worker.createConnector("floe-s3", config("ridden-out", table, 120_000));
    ConnectFixture.produce(kafka.bootstrapServers(), "ridden-out", 4, events.subList(0, HALF));
    awaitRows(worker, "floe-s3", table, HALF, Duration.ofMinutes(2));

    // Writes refused: reads go through, so Iceberg's own retries of metadata reads (which wait
    // out a whole outage of a few seconds inside one call) do not hide it from the task.
    s3.setWritesDown(true);
    ConnectFixture.produce(kafka.bootstrapServers(), "ridden-out", 4, events.subList(HALF, 2 * HALF));
    Thread.sleep(4_000);
    s3.setWritesDown(false);
    long refused = s3.refusedRequests();

    awaitRows(worker, "floe-s3", table, 2 * HALF, Duration.ofMinutes(2));
    assertEquals(ConnectFixture.nexmarkFingerprint(5, 2 * HALF), TableFingerprint.of(table), "every event once");
    assertTrue(refused > 0, "the outage refused the task's requests");
    assertTrue(worker.sum("dev.floe:type=FloeIcebergSinkTask,connector=floe-s3,*", "OutageRetries") >= 1,
        "the task counted the cycles it read again");
    assertNull(worker.failure("floe-s3"), "the task runs on");
    assertTrue(worker.status("floe-s3").contains("\"state\":\"RUNNING\""), worker.status("floe-s3"));
    worker.deleteConnector("floe-s3");
  }

  @Test
  void anOutagePastTheTimeoutFailsTheTaskSayingSoAndARestartCompletesTheTable() throws Exception {
    List<byte[]> events = ConnectFixture.nexmark(9, 2 * HALF);
    Table table = createTopicAndTable("timed-out");
    worker.createConnector("floe-s3-timeout", config("timed-out", table, 3_000));
    ConnectFixture.produce(kafka.bootstrapServers(), "timed-out", 4, events.subList(0, HALF));
    awaitRows(worker, "floe-s3-timeout", table, HALF, Duration.ofMinutes(2));

    s3.setWritesDown(true); // reads go through: nothing waits in Iceberg's own retries of them
    try {
      ConnectFixture.produce(kafka.bootstrapServers(), "timed-out", 4, events.subList(HALF, 2 * HALF));
      String failure = awaitFailure("floe-s3-timeout", Duration.ofMinutes(2));
      assertTrue(failure.contains("the tables' storage or catalog kept failing for")
          && failure.contains("floe.storage.retry.timeout.ms is PT3S"), failure);
    } finally {
      s3.setWritesDown(false);
    }
    worker.restartTask("floe-s3-timeout", 0);
    awaitRunning("floe-s3-timeout", Duration.ofMinutes(1));
    awaitRows(worker, "floe-s3-timeout", table, 2 * HALF, Duration.ofMinutes(2));
    assertEquals(ConnectFixture.nexmarkFingerprint(9, 2 * HALF), TableFingerprint.of(table), "every event once");
    worker.deleteConnector("floe-s3-timeout");
  }

  private static Table createTopicAndTable(String topic) {
    kafka.createTopic(topic, 4);
    return ConnectFixture.createTable(
        catalog, TableIdentifier.of("s3", topic.replace('-', '_')), ConnectFixture.NEXMARK, "bid.auction");
  }

  /** Raw JSON bytes into {@code table} of the catalog in the store; cycles of 500 records. */
  private static Map<String, String> config(String topic, Table table, long retryTimeoutMs) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", FLOE);
    c.put("tasks.max", "1");
    c.put("topics", topic);
    c.put("iceberg.tables", table.name().substring(table.name().indexOf('.') + 1));
    c.put("iceberg.catalog", "iceberg");
    catalogProperties.forEach((k, v) -> c.put("iceberg.catalog." + k, v));
    c.put("iceberg.control.commit.interval-ms", "1000");
    c.put("floe.commit.records", "500");
    c.put("floe.storage.retry.timeout.ms", Long.toString(retryTimeoutMs));
    c.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    return c;
  }

  private static void awaitRunning(String connector, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (worker.failure(connector) != null) {
      if (System.nanoTime() > deadline) {
        fail("the task did not run again within " + timeout + "; see " + worker.log());
      }
      Thread.sleep(200);
    }
  }

  private static String awaitFailure(String connector, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      String failure = worker.failure(connector);
      if (failure != null) {
        return failure;
      }
      Thread.sleep(200);
    }
    return fail("the task did not fail within " + timeout + "; see " + worker.log());
  }

  /**
   * The packaged plugin folder, copied, with iceberg-aws, failsafe (which it needs) and
   * iceberg-aws-bundle (from this test's classpath) added next to floe's jars: what a user does for S3, as for Iceberg's own connector
   * without its runtime bundle.
   */
  private static Path pluginWithS3() throws IOException {
    Path source = ConnectFixture.pluginPath();
    Path target = dir.resolve("plugins");
    try (Stream<Path> files = Files.walk(source)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Path copy = target.resolve(source.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(copy);
        } else {
          Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    Path lib;
    try (Stream<Path> dirs = Files.walk(target)) {
      lib = dirs.filter(p -> Files.isDirectory(p) && p.getFileName().toString().equals("lib")).findFirst()
          .orElseThrow(() -> new IllegalStateException("no lib/ folder in the plugin " + source));
    }
    int added = 0;
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      String name = Path.of(entry).getFileName().toString();
      if ((name.startsWith("iceberg-aws-") || name.startsWith("failsafe-")) && name.endsWith(".jar")) {
        Files.copy(Path.of(entry), lib.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        added++;
      }
    }
    assertEquals(3, added, "iceberg-aws, its dependency failsafe and iceberg-aws-bundle on the test classpath");
    return target;
  }
}
