package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.Test;

/**
 * Upsert mode, and the table upgraded from format v2 to v3 while a cycle's writers, made for v2,
 * hold position-delete files: v3 takes position deletes only as deletion vectors, so those files
 * must not be committed. The cycle is written again for v3 instead (as after a fence), and every
 * key keeps exactly its latest row.
 */
class FormatUpgradedMidCycleTest extends BrokerAndCatalog {
  private static final String TOPIC = "upgraded";
  private static final TableIdentifier TABLE = TableIdentifier.of("t", "upgraded");

  FormatUpgradedMidCycleTest() {
    super("t");
  }

  @Test
  void aCycleWithV2PositionDeletesIsWrittenAgainForV3() throws Exception {
    kafka.createTopic(TOPIC, 1);
    // Each id twice in one cycle: the second replaces the first through a position delete.
    List<byte[]> messages = new ArrayList<>();
    Map<Long, Long> latest = new HashMap<>();
    for (long seq = 0; seq < 400; seq++) {
      long id = seq % 200;
      messages.add(keyed(id, seq, "k"));
      latest.put(id, seq);
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), TOPIC, Collections.nCopies(messages.size(), 0), messages);
    AtomicBoolean upgraded = new AtomicBoolean();
    // upgraded to v3 through another handle just before the sink's first commit
    Catalog upgrading = new WrappingCatalog(catalog, (id, ops) -> new BeforeFirstSnapshotCommit(ops, upgraded,
        () -> catalog.loadTable(TABLE).updateProperties().set("format-version", "3").commit()));
    try (KafkaIcebergSink sink = new KafkaIcebergSink(SinkConfig.builder(upgrading, kafka.bootstrapServers(), TOPIC)
        .createTables(KEYED, PartitionSpec.unpartitioned(), V2)
        .route(TOPIC, TABLE)
        .upsert(true)
        .commitEvery(Duration.ofSeconds(60), 100_000, Long.MAX_VALUE)
        .stopAtEnd(true)
        .build())) {
      sink.run();
    }
    assertTrue(upgraded.get(), "the table was upgraded during the run");
    Table table = catalog.loadTable(TABLE);
    assertEquals(3, TableUtil.formatVersion(table));
    assertEquals(latest, SinkFixture.seqById(table), "each key's latest row, once");
    for (Snapshot snapshot : table.snapshots()) {
      for (DeleteFile file : snapshot.addedDeleteFiles(table.io())) {
        assertTrue(file.content() != FileContent.POSITION_DELETES || ContentFileUtil.isDV(file),
            "a v3 table takes position deletes only as deletion vectors: " + file.location());
      }
    }
    assertEquals(400L, SinkFixture.storedOffsets(table, TOPIC).get(new org.apache.kafka.common.TopicPartition(TOPIC, 0)));
  }
}
