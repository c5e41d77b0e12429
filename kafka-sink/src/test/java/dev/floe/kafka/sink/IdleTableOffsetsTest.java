package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Route-field mode with a table that gets records rarely ("rare"). Its stored offsets are what
 * every restart and rebalance resumes the partition from (the lowest of the tables'): before
 * {@code idle.commit.cycles}, it kept the offset of its last data, and each resume read every
 * record since then again, skipping them for the other table.
 */
class IdleTableOffsetsTest extends BrokerAndCatalog {
  private static final TableIdentifier BUSY = TableIdentifier.of("t", "busy");
  private static final TableIdentifier RARE = TableIdentifier.of("t", "rare");

  IdleTableOffsetsTest() {
    super("t");
  }

  @Test
  void anIdleTableStoresTheOffsetsReachedEveryFewCyclesAndAtTheLast() throws Exception {
    String topic = "idle-cycles";
    rareThenBusy(topic);

    run(topic, 2);

    Table rare = catalog.loadTable(RARE);
    List<Long> withoutFiles = offsetsStoredWithoutFiles(rare, topic);
    assertTrue(withoutFiles.size() >= 2, "the idle table was committed without files: " + withoutFiles);
    assertTrue(withoutFiles.get(0) < 1_000, "while the sink ran, not only at its end: " + withoutFiles);
    assertEquals(1_000L, SinkFixture.storedOffsets(rare, topic).get(new TopicPartition(topic, 0)),
        "and at the last cycle, every offset reached");
    assertEquals(ids(0, 10), SinkFixture.rowsPerId(rare), "its rows once, no more");
    assertEquals(ids(10, 990), SinkFixture.rowsPerId(catalog.loadTable(BUSY)));
  }

  @Test
  void withZeroTheIdleTableKeepsTheOffsetOfItsLastData() throws Exception {
    String topic = "idle-never";
    rareThenBusy(topic);

    run(topic, 0);

    Table rare = catalog.loadTable(RARE);
    assertEquals(List.of(), offsetsStoredWithoutFiles(rare, topic));
    long stored = SinkFixture.storedOffsets(rare, topic).get(new TopicPartition(topic, 0));
    assertTrue(stored >= 10 && stored < 1_000, "the offset of the cycle with its data: " + stored);
  }

  @Test
  void aRestartResumesFromTheOffsetsTheIdleTableStored() throws Exception {
    String topic = "idle-restart";
    rareThenBusy(topic);
    run(topic, 10); // fewer than 10 cycles: only the last one stores the idle table's offset

    produce(topic, 1_000, 5, "rare");
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config(topic, 10))) {
      sink.run();
      assertEquals(5, sink.metrics().getRecordsConsumed(), "only the new records were read");
    }
    Map<Long, Integer> rareIds = ids(0, 10);
    rareIds.putAll(ids(1_000, 5));
    assertEquals(rareIds, SinkFixture.rowsPerId(catalog.loadTable(RARE)));
    assertEquals(ids(10, 990), SinkFixture.rowsPerId(catalog.loadTable(BUSY)));
  }

  /** A one-partition topic: ids 0-9 to the rare table, then 10-999 to the busy one. */
  private static void rareThenBusy(String topic) throws IOException {
    kafka.createTopic(topic, 1);
    produce(topic, 0, 10, "rare");
    produce(topic, 10, 990, "busy");
  }

  private void run(String topic, int idleCommitCycles) {
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config(topic, idleCommitCycles))) {
      sink.run();
    }
  }

  /** Cycles of at most 100 records (polls of at most 50), to the end of the topic. */
  private SinkConfig config(String topic, int idleCommitCycles) {
    return SinkConfig.builder(catalog, kafka.bootstrapServers(), topic)
        .createTables(KEYED, PartitionSpec.unpartitioned(), V2)
        .topics(List.of(topic))
        .routeField("kind")
        .routeValue("busy", BUSY)
        .routeValue("rare", RARE)
        .commitEvery(Duration.ofSeconds(60), 100, Long.MAX_VALUE)
        .consumerProperty("max.poll.records", 50)
        .idleCommitCycles(idleCommitCycles)
        .stopAtEnd(true)
        .build();
  }

  /** The offsets stored by the table's snapshots that added no file, in commit order. */
  private static List<Long> offsetsStoredWithoutFiles(Table table, String group) {
    List<Long> out = new ArrayList<>();
    for (Snapshot s : table.snapshots()) {
      String json = s.summary().get(SnapshotOffsets.key(group));
      if (json != null && s.summary().getOrDefault(SnapshotSummary.ADDED_FILES_PROP, "0").equals("0")) {
        out.add(SnapshotOffsets.parse(json).get(new TopicPartition(group, 0)).next());
      }
    }
    return out;
  }

  private static Map<Long, Integer> ids(long first, int count) {
    Map<Long, Integer> out = new TreeMap<>();
    for (long id = first; id < first + count; id++) {
      out.put(id, 1);
    }
    return out;
  }

  private static void produce(String topic, long firstId, int count, String kind) throws IOException {
    List<byte[]> messages = new ArrayList<>();
    for (long id = firstId; id < firstId + count; id++) {
      messages.add(keyed(id, id, kind));
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), topic, Collections.nCopies(count, 0), messages);
  }
}
