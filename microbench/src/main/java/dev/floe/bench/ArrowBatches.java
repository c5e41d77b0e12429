package dev.floe.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Builds the Arrow side of a {@link GeneratedTable}. */
final class ArrowBatches {
  private ArrowBatches() {}

  static Schema schema(List<Column> columns) {
    List<Field> fields = new ArrayList<>();
    for (Column column : columns) {
      // floe writes this metadata as the Parquet field id, which Iceberg reads columns by.
      Map<String, String> metadata = Map.of("PARQUET:field_id", Integer.toString(column.fieldId()));
      FieldType type = new FieldType(column.nullable(), arrowType(column.type()), null, metadata);
      fields.add(new Field(column.name(), type, null));
    }
    return new Schema(fields);
  }

  private static ArrowType arrowType(Column.Type type) {
    return switch (type) {
      case INT64 -> new ArrowType.Int(64, true);
      case INT32 -> new ArrowType.Int(32, true);
      case FLOAT64 -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case UTF8 -> ArrowType.Utf8.INSTANCE;
      case TIMESTAMP_MICROS -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
    };
  }

  static List<VectorSchemaRoot> build(GeneratedTable table, BufferAllocator allocator, int batchRows) {
    Schema schema = schema(table.columns());
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try {
      for (int from = 0; from < table.rowCount(); from += batchRows) {
        int to = Math.min(table.rowCount(), from + batchRows);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        batches.add(root);
        for (int c = 0; c < table.columns().size(); c++) {
          fill(root.getVector(c), table.columns().get(c), from, to);
        }
        root.setRowCount(to - from);
      }
      return batches;
    } catch (RuntimeException | Error e) {
      batches.forEach(VectorSchemaRoot::close);
      throw e;
    }
  }

  private static void fill(FieldVector vector, Column column, int from, int to) {
    int n = to - from;
    switch (column.type()) {
      case INT64 -> {
        BigIntVector v = (BigIntVector) vector;
        v.allocateNew(n);
        long[] values = (long[]) column.values();
        for (int i = 0; i < n; i++) {
          v.set(i, values[from + i]);
        }
      }
      case INT32 -> {
        IntVector v = (IntVector) vector;
        v.allocateNew(n);
        int[] values = (int[]) column.values();
        for (int i = 0; i < n; i++) {
          v.set(i, values[from + i]);
        }
      }
      case FLOAT64 -> {
        Float8Vector v = (Float8Vector) vector;
        v.allocateNew(n);
        double[] values = (double[]) column.values();
        for (int i = 0; i < n; i++) {
          v.set(i, values[from + i]);
        }
      }
      case TIMESTAMP_MICROS -> {
        TimeStampMicroVector v = (TimeStampMicroVector) vector;
        v.allocateNew(n);
        long[] values = (long[]) column.values();
        for (int i = 0; i < n; i++) {
          v.set(i, values[from + i]);
        }
      }
      case UTF8 -> {
        VarCharVector v = (VarCharVector) vector;
        v.allocateNew(n);
        String[] values = (String[]) column.values();
        for (int i = 0; i < n; i++) {
          String s = values[from + i];
          if (s == null) {
            v.setNull(i);
          } else {
            v.setSafe(i, s.getBytes(StandardCharsets.UTF_8));
          }
        }
      }
    }
    vector.setValueCount(n);
  }
}
