package dev.floe.iceberg;

import dev.floe.arrow.PartitionField;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Converts between Iceberg partition specs and what libfloe's partitioner takes and returns: the
 * spec's fields as {@link PartitionField}s, and a row of native partition values as Iceberg's
 * {@link PartitionData} in its internal representation (int days, long micros, UUID, ByteBuffer).
 */
final class PartitionValues {
  private PartitionValues() {}

  static List<PartitionField> fields(PartitionSpec spec) {
    List<PartitionField> fields = new ArrayList<>(spec.fields().size());
    for (org.apache.iceberg.PartitionField f : spec.fields()) {
      fields.add(new PartitionField(f.name(), f.sourceId(), f.transform().toString()));
    }
    return fields;
  }

  /** Row {@code row} of {@code values} (columns in spec order) as the spec's partition tuple. */
  static PartitionData read(PartitionSpec spec, VectorSchemaRoot values, int row) {
    PartitionData partition = new PartitionData(spec.partitionType());
    readInto(partition, spec, values, row);
    return partition;
  }

  /** Sets every field of {@code partition} (a tuple of {@code spec}'s type) from row {@code row}. */
  static void readInto(PartitionData partition, PartitionSpec spec, VectorSchemaRoot values, int row) {
    List<Types.NestedField> fields = spec.partitionType().fields();
    for (int i = 0; i < fields.size(); i++) {
      FieldVector vector = values.getVector(i);
      partition.set(i, vector.isNull(row) ? null : value(fields.get(i).type(), vector, row));
    }
  }

  private static Object value(Type type, FieldVector vector, int row) {
    return switch (type.typeId()) {
      case TIMESTAMP, TIMESTAMP_NANO -> ((TimeStampVector) vector).get(row);
      case STRING -> string(vector, row);
      case UUID -> uuid(((FixedSizeBinaryVector) vector).get(row));
      case FIXED, BINARY -> ByteBuffer.wrap(bytes(vector, row));
      // int, long, float, double, boolean, date (Integer), time (Long), decimal (BigDecimal):
      // Arrow's objects are already Iceberg's internal values.
      default -> vector.getObject(row);
    };
  }

  private static String string(FieldVector vector, int row) {
    if (vector instanceof VarCharVector v) {
      return new String(v.get(row), java.nio.charset.StandardCharsets.UTF_8);
    }
    return new String(((LargeVarCharVector) vector).get(row), java.nio.charset.StandardCharsets.UTF_8);
  }

  private static byte[] bytes(FieldVector vector, int row) {
    if (vector instanceof FixedSizeBinaryVector v) {
      return v.get(row);
    }
    if (vector instanceof LargeVarBinaryVector v) {
      return v.get(row);
    }
    return ((BaseVariableWidthVector) vector).get(row);
  }

  private static UUID uuid(byte[] bytes) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    return new UUID(buffer.getLong(), buffer.getLong());
  }
}
