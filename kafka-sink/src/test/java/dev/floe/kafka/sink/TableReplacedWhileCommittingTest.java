package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Another writer replaces the table ({@code CREATE OR REPLACE TABLE}) with a column's type changed
 * while the sink commits a cycle to it. Replacing keeps each column's id by name, so the cycle's
 * files, written with {@code seq} as a long, would have landed under a schema where it is a double
 * (helper-64: the commit went through, and the table's readers met longs where doubles were due).
 * The commit is fenced instead and the cycle written again for the new schema.
 */
class TableReplacedWhileCommittingTest extends BrokerAndCatalog {
  private static final String TOPIC = "replaced-mid-commit";
  private static final TableIdentifier TABLE = TableIdentifier.of("t", "replaced_mid_commit");
  private static final Schema SEQ_AS_DOUBLE =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "seq", Types.DoubleType.get()),
          Types.NestedField.optional(3, "kind", Types.StringType.get()));

  TableReplacedWhileCommittingTest() {
    super("t");
  }

  @Test
  void aCycleWrittenBeforeAReplaceIsWrittenAgainForTheNewSchema() throws Exception {
    kafka.createTopic(TOPIC, 1);
    catalog.createTable(TABLE, KEYED, PartitionSpec.unpartitioned(), V2);
    List<byte[]> messages = new ArrayList<>();
    Map<Long, Double> expected = new TreeMap<>();
    for (long id = 0; id < 100; id++) {
      messages.add(keyed(id, 1000 + id, "k"));
      expected.put(id, 1000.0 + id);
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), TOPIC, Collections.nCopies(messages.size(), 0), messages);
    AtomicBoolean replaced = new AtomicBoolean();
    Catalog hooked = new WrappingCatalog(catalog, (id, ops) -> new BeforeFirstSnapshotCommit(ops, replaced,
        () -> catalog.buildTable(TABLE, SEQ_AS_DOUBLE).withProperties(V2).replaceTransaction().commitTransaction()));
    try (KafkaIcebergSink sink = new KafkaIcebergSink(SinkConfig.builder(hooked, kafka.bootstrapServers(), TOPIC)
        .route(TOPIC, TABLE)
        .commitEvery(Duration.ofSeconds(60), 100, Long.MAX_VALUE)
        .stopAtEnd(true)
        .build())) {
      sink.run();
      assertTrue(replaced.get(), "the table was replaced during the first commit");
      assertTrue(sink.metrics().getFencedCycles() >= 1, "the cycle was fenced and written again");
    }
    Table table = catalog.loadTable(TABLE);
    assertEquals(Types.DoubleType.get(), table.schema().findType("seq"));
    Map<Long, Double> read = new TreeMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record row : rows) {
        assertEquals(null, read.put((Long) row.getField("id"), (Double) row.getField("seq")), "one row per id");
      }
    }
    assertEquals(expected, read, "every record once, seq read as the double it now is");
  }
}
