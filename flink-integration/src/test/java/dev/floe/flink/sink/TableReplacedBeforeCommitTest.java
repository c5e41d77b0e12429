package dev.floe.flink.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A checkpoint pending while the table is replaced ({@code CREATE OR REPLACE TABLE}) with {@code id}
 * turned from a long into a double. Replacing keeps each column's id by name, so the checkpoint's
 * files, holding longs, would have landed where readers now expect doubles. A Flink job cannot
 * write them again (its source moved past their records), so the commit is refused, naming the
 * column; a change readers can follow (a rename) still commits.
 */
class TableReplacedBeforeCommitTest extends IdNameTableTest {
  private static final TableIdentifier TABLE = TableIdentifier.of("db", "replaced");

  TableReplacedBeforeCommitTest() {
    super(TABLE, false);
  }

  @Test
  void aCheckpointWrittenBeforeATypeChangeIsRefusedByName() throws Exception {
    byte[] files = fiftyRows();
    catalog.buildTable(TABLE, new Schema(
            Types.NestedField.required(1, "id", Types.DoubleType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get())))
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .replaceTransaction()
        .commitTransaction();

    IllegalStateException refused = assertThrows(IllegalStateException.class,
        () -> IdNameTable.commit(ref, List.of(new FloeCommittable(files, "job", "op", "run", 7))));

    assertTrue(refused.getMessage().contains("checkpoint 7 of job job cannot be committed to")
        && refused.getMessage().contains("field 1 'id' written as long is now double"), refused.getMessage());
    assertNull(catalog.loadTable(TABLE).currentSnapshot(), "nothing committed");
  }

  @Test
  void aCheckpointWrittenBeforeARenameCommits() throws Exception {
    byte[] files = fiftyRows();
    catalog.loadTable(TABLE).updateSchema().renameColumn("name", "label").commit();

    assertEquals(List.of(false), IdNameTable.commit(ref, List.of(new FloeCommittable(files, "job", "op", "run", 7))));

    Table table = catalog.loadTable(TABLE);
    Map<Long, String> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(r -> rows.put((Long) r.getField("id"), (String) r.getField("label")));
    }
    Map<Long, String> expected = new TreeMap<>();
    for (long key = 0; key < 50; key++) {
      expected.put(key, "n" + key);
    }
    assertEquals(expected, rows);
  }

  /** One writer's checkpoint of rows 0-49 as the table was. */
  private byte[] fiftyRows() throws Exception {
    try (RowDataWriter writer = new RowDataWriter(ref,
        new RowDataWriterSettings(IdNameTable.ROWS, RowWriteMode.APPEND, 16, Map.of()), 0, 0, new UnregisteredMetricsGroup())) {
      for (long key = 0; key < 50; key++) {
        writer.write(GenericRowData.of(key, StringData.fromString("n" + key)), null);
      }
      return WrittenFiles.concat(writer.prepareCommit()).bytes();
    }
  }
}
