package dev.floe.flink.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.flink.EmbeddedCatalogTest;
import dev.floe.flink.IcebergTableRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A writer started after the table's columns were renamed or dropped since the job was planned
 * follows each of the rows' fields to its column by field id (helper-65: matched by name, a field
 * could land in another column that had taken its name, or in none).
 */
class RowsAgainstTableTest extends EmbeddedCatalogTest {
  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");

  /** Rows [id, a, b]; then b dropped and a renamed to b: the rows' a goes to the new b, their b nowhere. */
  @Test
  void aFieldFollowsItsColumnRenamedToTheNameOfADroppedOne() throws Exception {
    List<String> read = writeAfter(List.of("a", "b"), t -> t.updateSchema().deleteColumn("b").commit(),
        t -> t.updateSchema().renameColumn("a", "b").commit());
    assertEquals(List.of("id=1 b=value of a"), read);
  }

  /** Rows [id, a]; then a renamed to b, a new a added and dropped again: the rows' a still goes to b. */
  @Test
  void aFieldFollowsItsColumnWhenItsOldNameWasReusedAndDropped() throws Exception {
    List<String> read = writeAfter(List.of("a"), t -> t.updateSchema().renameColumn("a", "b").commit(),
        t -> t.updateSchema().addColumn("a", Types.StringType.get()).commit(),
        t -> t.updateSchema().deleteColumn("a").commit());
    assertEquals(List.of("id=1 b=value of a"), read);
  }

  /** A dropped column's field is left out, and does not make a field the table never had welcome. */
  @Test
  void aFieldNoSchemaHadIsRefusedBesideADroppedOne() {
    Schema schema = schema(List.of("a", "b"));
    catalog.createTable(TABLE, schema, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    Table table = catalog.loadTable(TABLE);
    int planned = table.schema().schemaId();
    table.updateSchema().deleteColumn("b").commit();
    RowType rows = FlinkSchemaUtil.convert(schema(List.of("a", "b", "ghost")));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> writer(rows, planned).close());
    assertTrue(e.getMessage().contains("a field 'ghost' that the table lacks"), e.getMessage());
  }

  private List<String> writeAfter(List<String> columns, Consumer<Table>... changes) throws Exception {
    Schema schema = schema(columns);
    catalog.createTable(TABLE, schema, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    Table table = catalog.loadTable(TABLE);
    int planned = table.schema().schemaId();
    for (Consumer<Table> change : changes) {
      change.accept(table);
    }
    GenericRowData row = new GenericRowData(columns.size() + 1);
    row.setField(0, 1L);
    for (int i = 0; i < columns.size(); i++) {
      row.setField(i + 1, StringData.fromString("value of " + columns.get(i)));
    }
    byte[] files;
    try (RowDataWriter writer = writer(FlinkSchemaUtil.convert(schema), planned)) {
      writer.write(row, null);
      files = WrittenFiles.concat(writer.prepareCommit()).bytes();
    }
    IdNameTable.commit(ref(), List.of(new FloeCommittable(files, "job", "op", "run", 1)));
    table.refresh();
    List<String> out = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record r : records) {
        StringBuilder text = new StringBuilder("id=" + r.getField("id"));
        for (Types.NestedField column : table.schema().columns().subList(1, table.schema().columns().size())) {
          text.append(' ').append(column.name()).append('=').append(r.getField(column.name()));
        }
        out.add(text.toString());
      }
    }
    return out;
  }

  private RowDataWriter writer(RowType rows, int plannedSchemaId) {
    return new RowDataWriter(ref(), new RowDataWriterSettings(rows, RowWriteMode.APPEND, 16, Map.of(), plannedSchemaId),
        0, 0, new UnregisteredMetricsGroup());
  }

  private IcebergTableRef ref() {
    return IcebergTableRef.embedded(warehouse, TABLE);
  }

  /** id (required long) and optional string columns of these names. */
  private static Schema schema(List<String> columns) {
    List<Types.NestedField> fields = new ArrayList<>();
    fields.add(Types.NestedField.required(1, "id", Types.LongType.get()));
    for (int i = 0; i < columns.size(); i++) {
      fields.add(Types.NestedField.optional(i + 2, columns.get(i), Types.StringType.get()));
    }
    return new Schema(fields);
  }
}
