package dev.floe.flink.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Keying rows by partition when the rows leave out an optional column a partition field is taken
 * from (floe writes it as null): before the fix (helper-78) the key's accessor failed on the first
 * row, and a job under {@code distribution-mode=hash} restarted without end.
 */
class RowKeySelectorTest {
  private static final Schema TABLE = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "region", Types.StringType.get())), Set.of());
  /** Without region. */
  private static final RowType ROWS =
      RowType.of(new LogicalType[] {new BigIntType(false), new VarCharType(true, 10)}, new String[] {"id", "name"});

  @Test
  void aPartitionFieldOfAnOmittedColumnIsLeftOutOfTheKey() throws Exception {
    PartitionSpec spec = PartitionSpec.builderFor(TABLE).identity("region").bucket("id", 4).build();
    RowKeySelector selector = RowKeySelector.byPartition(TABLE, spec, ROWS);
    Set<Integer> keys = new HashSet<>();
    for (long id = 0; id < 100; id++) {
      keys.add(selector.getKey(GenericRowData.of(id, StringData.fromString("n" + id))));
    }
    assertEquals(4, keys.size(), "one key per bucket of id: " + keys);
    assertEquals(selector.getKey(GenericRowData.of(7L, StringData.fromString("a"))),
        selector.getKey(GenericRowData.of(7L, StringData.fromString("b"))), "the name is no part of the key");
  }

  @Test
  void theFullSpecKeysRowsThatHaveEveryColumn() throws Exception {
    PartitionSpec spec = PartitionSpec.builderFor(TABLE).identity("region").build();
    RowType all = RowType.of(new LogicalType[] {new BigIntType(false), new VarCharType(true, 10), new VarCharType(true, 10)},
        new String[] {"id", "name", "region"});
    RowKeySelector selector = RowKeySelector.byPartition(TABLE, spec, all);
    assertNotEquals(selector.getKey(GenericRowData.of(1L, null, StringData.fromString("eu"))),
        selector.getKey(GenericRowData.of(1L, null, StringData.fromString("us"))));
  }

  @Test
  void rowsWithNoneOfThePartitionsColumnsAreNotKeyed() {
    PartitionSpec spec = PartitionSpec.builderFor(TABLE).identity("region").build();
    assertNull(RowKeySelector.byPartition(TABLE, spec, ROWS), "every row is in one partition");
  }
}
