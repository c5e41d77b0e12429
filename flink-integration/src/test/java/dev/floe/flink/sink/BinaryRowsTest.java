package dev.floe.flink.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordException;
import dev.floe.arrow.DecodedBatch;
import dev.floe.arrow.InvalidArgumentException;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.flink.RandomRowData;
import dev.floe.flink.RowDataSinkTest;
import dev.floe.iceberg.ArrowSchemas;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.VectorEqualsVisitor;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * libfloe's reading of Flink binary rows against the Java path ({@link RowDataToArrow}, which reads
 * them through Flink's own {@code BinaryRowData} getters) on the same rows: the two Arrow batches
 * must be equal vector for vector (types, nulls, values).
 */
class BinaryRowsTest {
  private static final Schema NATIVE_TYPES = RowDataSinkTest.NATIVE_TYPES;

  private static final RowType NARROW =
      RowType.of(
          new LogicalType[] {
            new BigIntType(false), new TinyIntType(), new SmallIntType(), new TimestampType(3),
            new IntType(), new SmallIntType(), new FloatType()
          },
          new String[] {"id", "count", "small", "local_ts", "wide", "wide_small", "ratio"});

  /**
   * {@link #NARROW}'s table: TINYINT and SMALLINT into int columns, narrower integers into long
   * columns and FLOAT into a double one (each read at its own width: a binary row's slot holds
   * only that many bytes), a TIMESTAMP(3) (its compact form), a column the rows lack.
   */
  private static final Schema NARROW_TABLE =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "count", Types.IntegerType.get()),
          Types.NestedField.optional(3, "small", Types.IntegerType.get()),
          Types.NestedField.optional(4, "local_ts", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(5, "absent", Types.StringType.get()),
          Types.NestedField.optional(6, "wide", Types.LongType.get()),
          Types.NestedField.optional(7, "wide_small", Types.LongType.get()),
          Types.NestedField.optional(8, "ratio", Types.DoubleType.get()));

  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void closeAllocator() {
    allocator.close();
  }

  private static List<BinaryRowData> binary(RowType type, List<RowData> rows) {
    RowDataSerializer serializer = new RowDataSerializer(type);
    return rows.stream().map(row -> serializer.toBinaryRow(row).copy()).toList();
  }

  @Test
  void rowsReadNativelyEqualRowsCopiedInJava() {
    RowType type = FlinkSchemaUtil.convert(NATIVE_TYPES);
    // TINYINT and SMALLINT rows into int columns too, and a timestamp of precision 3 (compact)
    assertSameBatches(NATIVE_TYPES, type, new RandomRowData(11).rows(type, 2_000));
    assertSameBatches(NARROW_TABLE, NARROW, new RandomRowData(12).rows(NARROW, 2_000));
  }

  @Test
  void widenedValuesKeepTheirSignOnBothPaths() {
    RowData row = GenericRowData.of(1L, (byte) -5, (short) -300, null, -70_000, (short) -2, -1.5f);
    BinaryRowData binary = binary(NARROW, List.of(row)).getFirst();
    try (RowDataToArrow java = new RowDataToArrow(NARROW_TABLE, NARROW, false, allocator);
        BinaryRows binaryRows = BinaryRows.forRows(ArrowSchemas.toArrow(NARROW_TABLE), NARROW, 1)) {
      java.append(binary);
      binaryRows.add(binary);
      try (DecodedBatch decoded = binaryRows.readBatch(allocator)) {
        for (VectorSchemaRoot root : List.of(java.root(), decoded.root())) {
          assertEquals(-5, root.getVector("count").getObject(0));
          assertEquals(-70_000L, root.getVector("wide").getObject(0));
          assertEquals(-2L, root.getVector("wide_small").getObject(0));
          assertEquals(-1.5, root.getVector("ratio").getObject(0));
        }
      }
    }
  }

  private void assertSameBatches(Schema table, RowType type, List<RowData> rows) {
    try (RowDataToArrow java = new RowDataToArrow(table, type, false, allocator);
        BinaryRows binaryRows = BinaryRows.forRows(ArrowSchemas.toArrow(table), type, rows.size())) {
      // Both paths take the same binary rows (Flink's own getters read them for the Java path).
      for (BinaryRowData row : binary(type, rows)) {
        java.append(row);
        binaryRows.add(row);
      }
      try (DecodedBatch decoded = binaryRows.readBatch(allocator)) {
        VectorSchemaRoot expected = java.root();
        VectorSchemaRoot actual = decoded.root();
        assertEquals(rows.size(), actual.getRowCount());
        for (FieldVector vector : expected.getFieldVectors()) {
          FieldVector other = actual.getVector(vector.getName());
          assertTrue(
              new VectorEqualsVisitor().vectorEquals(vector, other),
              () -> vector.getName() + ": " + vector + " against " + other);
        }
        assertEquals(expected.getSchema(), actual.getSchema());
      }
    }
  }

  /** Rows spread over two memory segments, or off the heap, are read as the same rows on one array. */
  @Test
  void rowsOnSeveralOrOffHeapSegmentsReadAsOnOneArray() {
    RowType type = FlinkSchemaUtil.convert(NATIVE_TYPES);
    List<BinaryRowData> rows = binary(type, new RandomRowData(13).rows(type, 300));
    Schema arrow = NATIVE_TYPES;
    try (BinaryRows plain = BinaryRows.forRows(ArrowSchemas.toArrow(arrow), type, rows.size());
        BinaryRows moved = BinaryRows.forRows(ArrowSchemas.toArrow(arrow), type, rows.size())) {
      for (int i = 0; i < rows.size(); i++) {
        BinaryRowData row = rows.get(i);
        plain.add(row);
        byte[] bytes = BinarySegmentUtils.copyToBytes(row.getSegments(), row.getOffset(), row.getSizeInBytes());
        BinaryRowData elsewhere = new BinaryRowData(row.getArity());
        if (i % 2 == 0) {
          int cut = bytes.length / 3;
          elsewhere.pointTo(
              new MemorySegment[] {
                MemorySegmentFactory.wrap(Arrays.copyOfRange(bytes, 0, cut)),
                MemorySegmentFactory.wrap(Arrays.copyOfRange(bytes, cut, bytes.length))
              },
              0,
              bytes.length);
        } else {
          MemorySegment offHeap = MemorySegmentFactory.allocateUnpooledOffHeapMemory(bytes.length + 16);
          offHeap.put(16, bytes);
          elsewhere.pointTo(offHeap, 16, bytes.length);
        }
        moved.add(elsewhere);
      }
      try (DecodedBatch expected = plain.readBatch(allocator);
          DecodedBatch actual = moved.readBatch(allocator)) {
        assertEquals(rows.size(), actual.root().getRowCount());
        assertTrue(expected.root().equals(actual.root()), "the same rows read from other segments differ");
      }
    }
  }

  @Test
  void aNullInARequiredNestedFieldFailsNamingIt() {
    RowType type = FlinkSchemaUtil.convert(NATIVE_TYPES);
    GenericRowData row = (GenericRowData) new RandomRowData(3).rows(type, 1).getFirst();
    row.setField(13, GenericRowData.of(1, null));
    try (BinaryRows rows = BinaryRows.forRows(ArrowSchemas.toArrow(NATIVE_TYPES), type, 1)) {
      rows.add(binary(type, List.of(row)).getFirst());
      BadRecordException e = assertThrows(BadRecordException.class, () -> rows.readBatch(allocator));
      assertTrue(e.getMessage().contains("null in the table's required column 'point.label'"), e.getMessage());
    }
  }

  /** A timestamp past what microseconds since 1970 hold fails on both paths, naming its column. */
  @Test
  void aTimestampOutsideTheColumnFailsNamingIt() {
    for (long millis : new long[] {Long.MAX_VALUE / 100, Long.MIN_VALUE / 100}) {
      RowData row = GenericRowData.of(1L, null, null, TimestampData.fromEpochMillis(millis), null, null, null);
      BinaryRowData binary = binary(NARROW, List.of(row)).getFirst();
      try (RowDataToArrow java = new RowDataToArrow(NARROW_TABLE, NARROW, false, allocator);
          BinaryRows binaryRows = BinaryRows.forRows(ArrowSchemas.toArrow(NARROW_TABLE), NARROW, 1)) {
        IllegalArgumentException copied = assertThrows(IllegalArgumentException.class, () -> java.append(binary));
        assertTrue(copied.getMessage().contains("column 'local_ts'"), copied.getMessage());
        binaryRows.add(binary);
        BadRecordException read = assertThrows(BadRecordException.class, () -> binaryRows.readBatch(allocator).close());
        assertTrue(read.getMessage().contains("'local_ts'"), read.getMessage());
      }
    }
  }

  @Test
  void rowsLibfloeDoesNotReadStayOnTheJavaPath() {
    RowType type = FlinkSchemaUtil.convert(NATIVE_TYPES);
    try (BinaryRows rows = BinaryRows.forRows(ArrowSchemas.toArrow(NATIVE_TYPES), type, 16)) {
      assertNotNull(rows);
    }
    Schema withList =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "tags", Types.ListType.ofOptional(3, Types.StringType.get())));
    assertNull(BinaryRows.forRows(ArrowSchemas.toArrow(withList), FlinkSchemaUtil.convert(withList), 16));

    // a string row field into a long column: refused, with the pairing named
    RowType strings = RowType.of(new VarCharType(), new BigIntType(false));
    Schema longs =
        new Schema(
            Types.NestedField.optional(1, "f0", Types.LongType.get()),
            Types.NestedField.required(2, "f1", Types.LongType.get()));
    InvalidArgumentException refused =
        assertThrows(
            InvalidArgumentException.class,
            () -> NativeJsonDecoder.forFlinkRows(ArrowSchemas.toArrow(longs), BinaryRows.rowTypeJson(strings)).close());
    assertTrue(refused.getMessage().contains("column 'f0' is Int64 and the rows hold VARCHAR"), refused.getMessage());
  }
}
