package dev.floe.flink.sink;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Rows whose field types the table's columns do not take are refused when the writer is made,
 * as Iceberg's sink refuses them: before, a BIGINT field of a binary row was read as the int
 * column's 4 bytes, and local timestamps were stored as instants (and the other way round).
 */
class RowTypeCheckTest {
  @Test
  void typesTheColumnDoesNotTakeAreRefusedByColumn() {
    assertRefused(Types.IntegerType.get(), new BigIntType());
    assertRefused(Types.FloatType.get(), new DoubleType());
    assertRefused(Types.DoubleType.get(), new BigIntType());
    assertRefused(Types.TimestampType.withZone(), new TimestampType(3));
    assertRefused(Types.TimestampType.withoutZone(), new LocalZonedTimestampType(3));
  }

  @Test
  void theColumnsOwnTypesAndIcebergsPromotionsAreTaken() {
    assertTaken(Types.LongType.get(), new IntType());
    assertTaken(Types.DoubleType.get(), new FloatType());
    assertTaken(Types.TimestampType.withoutZone(), new TimestampType(6));
    assertTaken(Types.TimestampType.withZone(), new LocalZonedTimestampType(6));
  }

  private static void assertRefused(Type column, LogicalType field) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> assertTaken(column, field));
    assertTrue(e.getMessage().contains("column 'v' is " + column), e.getMessage());
  }

  private static void assertTaken(Type column, LogicalType field) {
    Schema schema = new Schema(Types.NestedField.optional(1, "v", column));
    try (BufferAllocator allocator = new RootAllocator();
        RowDataToArrow rows = new RowDataToArrow(schema, RowType.of(new LogicalType[] {field}, new String[] {"v"}), false, allocator)) {
      // made: the pairing is taken
    }
  }
}
