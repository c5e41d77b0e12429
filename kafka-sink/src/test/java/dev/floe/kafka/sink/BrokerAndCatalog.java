package dev.floe.kafka.sink;

import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.LocalKafkaBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the sink tests run against: one real KRaft broker per test class, and a fresh embedded
 * catalog (JDBC on SQLite, local warehouse) per test, holding the namespace the class names.
 */
abstract class BrokerAndCatalog {
  @TempDir static Path brokerDir;
  static LocalKafkaBroker kafka;

  @TempDir Path warehouse;
  Catalog catalog;

  private final String namespace;

  BrokerAndCatalog(String namespace) {
    this.namespace = namespace;
  }

  @BeforeAll
  static void startBroker() {
    kafka = LocalKafkaBroker.start(brokerDir);
  }

  @AfterAll
  static void stopBroker() {
    kafka.close();
  }

  @BeforeEach
  void openCatalog() {
    catalog = Catalogs.embedded(warehouse);
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of(namespace));
  }

  @AfterEach
  void closeCatalog() throws Exception {
    if (catalog instanceof AutoCloseable c) {
      c.close();
    }
  }

  /**
   * Deletes every file of partition 0 of {@code topic}'s log but the one naming its topic id, while
   * the broker is down: the log starts again at offset 0, as after an unclean leader election.
   */
  static void deleteLogSegments(String topic) throws IOException {
    Path dir = brokerDir.resolve("kafka-logs").resolve(topic + "-0");
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.toList()) {
        if (!f.getFileName().toString().equals("partition.metadata")) {
          Files.delete(f);
        }
      }
    }
  }
}
