package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * The table is dropped and created again by another writer while the sink commits a cycle to it.
 * The sink stops, saying so, and deletes the cycle's files (helper-64: Iceberg's bare "Table UUID
 * does not match", and one data file left in the new table's folder, referenced by nothing).
 */
class TableRecreatedWhileCommittingTest extends BrokerAndCatalog {
  private static final String TOPIC = "recreated-mid-commit";
  private static final TableIdentifier TABLE = TableIdentifier.of("t", "recreated_mid_commit");
  private static final String DROPPED_TOPIC = "dropped-mid-retry";
  private static final TableIdentifier DROPPED_TABLE = TableIdentifier.of("t", "dropped_mid_retry");

  TableRecreatedWhileCommittingTest() {
    super("t");
  }

  @Test
  void theSinkStopsSayingSoAndLeavesNoFileBehind() throws Exception {
    kafka.createTopic(TOPIC, 1);
    catalog.createTable(TABLE, KEYED, PartitionSpec.unpartitioned(), V2);
    produceHundredRecords(TOPIC);
    AtomicBoolean recreated = new AtomicBoolean();
    // on the sink's first commit: the table dropped (purged) and created again
    Catalog hooked = new WrappingCatalog(catalog, (id, ops) -> new BeforeFirstSnapshotCommit(ops, recreated, () -> {
      catalog.dropTable(TABLE, true);
      catalog.createTable(TABLE, KEYED, PartitionSpec.unpartitioned(), V2);
    }));
    SinkException failed;
    try (KafkaIcebergSink sink = new KafkaIcebergSink(SinkConfig.builder(hooked, kafka.bootstrapServers(), TOPIC)
        .route(TOPIC, TABLE)
        .commitEvery(Duration.ofSeconds(60), 100, Long.MAX_VALUE)
        .stopAtEnd(true)
        .build())) {
      failed = assertThrows(SinkException.class, sink::run);
    }
    assertTrue(recreated.get());
    assertTrue(failed.getMessage().contains("table " + catalog.loadTable(TABLE).name() + " was dropped and created again"
        + " while the sink wrote to it: this cycle is not committed"), failed.getMessage());
    assertEquals(List.of(), dataFilesUnder(catalog.loadTable(TABLE).location()), "no data file in the new table's folder");
  }

  /**
   * Dropped during a commit that Iceberg gives up on at once ({@code commit.retry.num-retries} 0):
   * the sink's own look at whether others committed meets the drop, and ends the same way (it threw
   * Iceberg's bare NoSuchTableException and left the cycle's files behind).
   */
  @Test
  void aDropMetWhileRetryingAConflictEndsTheSameWay() throws Exception {
    kafka.createTopic(DROPPED_TOPIC, 1);
    catalog.createTable(DROPPED_TABLE, KEYED, PartitionSpec.unpartitioned(), Map.of(
        TableProperties.FORMAT_VERSION, "2", TableProperties.COMMIT_NUM_RETRIES, "0"));
    String location = catalog.loadTable(DROPPED_TABLE).location();
    produceHundredRecords(DROPPED_TOPIC);
    AtomicBoolean dropped = new AtomicBoolean();
    Catalog hooked = new WrappingCatalog(catalog,
        (id, ops) -> new BeforeFirstSnapshotCommit(ops, dropped, () -> catalog.dropTable(DROPPED_TABLE, false)));
    SinkException failed;
    try (KafkaIcebergSink sink = new KafkaIcebergSink(SinkConfig.builder(hooked, kafka.bootstrapServers(), DROPPED_TOPIC)
        .route(DROPPED_TOPIC, DROPPED_TABLE)
        .commitEvery(Duration.ofSeconds(60), 100, Long.MAX_VALUE)
        .stopAtEnd(true)
        .build())) {
      failed = assertThrows(SinkException.class, sink::run);
    }
    assertTrue(dropped.get());
    assertTrue(failed.getMessage().contains(" was dropped while the sink wrote to it: this cycle is not committed"),
        failed.getMessage());
    assertEquals(List.of(), dataFilesUnder(location), "the cycle's files deleted");
  }

  private void produceHundredRecords(String topic) {
    List<byte[]> messages = new ArrayList<>();
    for (long id = 0; id < 100; id++) {
      messages.add(keyed(id, id, "k"));
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), topic, Collections.nCopies(messages.size(), 0), messages);
  }

  private static List<Path> dataFilesUnder(String tableLocation) throws Exception {
    Path data = Path.of(URI.create(tableLocation + "/data").getPath());
    try (Stream<Path> files = Files.exists(data) ? Files.walk(data) : Stream.empty()) {
      return files.filter(Files::isRegularFile).filter(f -> f.toString().endsWith(".parquet")).toList();
    }
  }
}
