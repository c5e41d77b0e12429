package dev.floe.flink.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.flink.EmbeddedCatalogTest;
import dev.floe.flink.IcebergTableRef;
import dev.floe.flink.KafkaPayload;
import dev.floe.testing.TableRows;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The raw path's writer follows the table: after an {@code ALTER TABLE} (a column added, one
 * renamed, a new partition field) between two checkpoints, the next checkpoint's files are written
 * with the new schema and spec. The writer runs outside a job here (its checkpoints are {@code
 * prepareCommit} calls, committed as appends) on the embedded catalog; rows are read back by
 * Iceberg's generic reader.
 */
class PayloadWriterSchemaChangeTest extends EmbeddedCatalogTest {

  /** A raw-path writer of the table, subtask 0 of 1. */
  private PayloadWriter writer(TableIdentifier id, PayloadWriterSettings settings) throws Exception {
    return new PayloadWriter(IcebergTableRef.embedded(warehouse, id), settings, 0, 1, new UnregisteredMetricsGroup());
  }

  @Test
  void theNextCheckpointWritesTheAlteredSchemaAndSpec() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "altered");
    Schema before = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "name", Types.StringType.get()));
    Table table = catalog.createTable(id, before, PartitionSpec.builderFor(before).bucket("id", 2).build(),
        Map.of(TableProperties.FORMAT_VERSION, "2"));
    try (PayloadWriter writer = writer(id, new PayloadWriterSettings(BadRecordPolicy.FAIL, 16, 1 << 20, false, false))) {
      for (int i = 0; i < 50; i++) {
        writer.write(payload(i, "\"name\":\"n" + i + "\""), null);
      }
      append(table, writer.prepareCommit());

      table.updateSchema().addColumn("city", Types.StringType.get()).renameColumn("name", "full_name").commit();
      table.updateSpec().addField("city").commit();

      for (int i = 50; i < 100; i++) {
        writer.write(payload(i, "\"full_name\":\"n" + i + "\",\"city\":\"c" + (i % 3) + "\""), null);
      }
      append(table, writer.prepareCommit());
    }

    Map<Long, List<Object>> rows = TableRows.byId(table, "id", "full_name", "city");
    Map<Long, List<Object>> expected = new TreeMap<>();
    for (long i = 0; i < 100; i++) {
      expected.put(i, Arrays.asList("n" + i, i < 50 ? null : "c" + (i % 3)));
    }
    assertEquals(expected, rows);
    int newSpec = table.spec().specId();
    try (var tasks = table.newScan().planFiles()) {
      for (var task : tasks) {
        boolean secondCheckpoint = task.file().location().contains("city=");
        assertEquals(secondCheckpoint ? newSpec : 0, task.file().specId(), task.file().location());
      }
    }
  }

  /**
   * With schema evolution, an identity-partitioned int column widened to long inside one
   * checkpoint: the files written before the widening hold an int partition value where the spec
   * now says long. Before, serializing the checkpoint's files failed ("Invalid default long value:
   * 5") and so did the checkpoint (found in review).
   */
  @Test
  void aPartitionColumnWidenedInsideACheckpointIsCommitted() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "widened");
    Schema before = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "n", Types.IntegerType.get()));
    Table table = catalog.createTable(id, before, PartitionSpec.builderFor(before).identity("n").build(),
        Map.of(TableProperties.FORMAT_VERSION, "2"));
    try (PayloadWriter writer = writer(id, new PayloadWriterSettings(BadRecordPolicy.FAIL, 1, 1 << 20, true, false))) {
      writer.write(payload(1, "\"n\":5"), null);
      writer.write(payload(2, "\"n\":3000000000"), null); // widens n to long
      append(table, writer.prepareCommit());
    }
    assertEquals(Map.of(1L, List.of(5L), 2L, List.of(3_000_000_000L)), TableRows.byId(table, "id", "n"));
  }

  private static KafkaPayload payload(int i, String rest) {
    return new KafkaPayload("events", 0, i, ("{\"id\":" + i + "," + rest + "}").getBytes(StandardCharsets.UTF_8));
  }

  private static void append(Table table, java.util.Collection<WrittenFiles> written) throws java.io.IOException {
    table.refresh();
    WriteResult result = WrittenFiles.concat(written).toWriteResult(table.specs());
    AppendFiles append = table.newAppend();
    Arrays.stream(result.dataFiles()).forEach(append::appendFile);
    append.commit();
  }
}
