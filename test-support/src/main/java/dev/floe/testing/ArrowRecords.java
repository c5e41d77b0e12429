package dev.floe.testing;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.iceberg.util.UUIDUtil;

/**
 * Arrow rows as Iceberg generic {@link Record}s, with the Java values Iceberg's generic data model
 * uses (LocalDateTime / OffsetDateTime for timestamps, BigDecimal, UUID, ByteBuffer for binary,
 * byte[] for fixed). Meant for checks and small volumes, not the hot path.
 */
public final class ArrowRecords {
  private ArrowRecords() {}

  public static List<Record> toRecords(VectorSchemaRoot root, Schema schema) {
    List<Record> records = new ArrayList<>(root.getRowCount());
    List<Types.NestedField> fields = schema.columns();
    for (int row = 0; row < root.getRowCount(); row++) {
      GenericRecord record = GenericRecord.create(schema);
      for (int f = 0; f < fields.size(); f++) {
        FieldVector vector = root.getVector(fields.get(f).name());
        record.set(f, value(vector, row, fields.get(f).type()));
      }
      records.add(record);
    }
    return records;
  }

  static Object value(ValueVector v, int row, Type type) {
    if (v.isNull(row)) {
      return null;
    }
    return switch (type.typeId()) {
      case BOOLEAN -> ((BitVector) v).get(row) == 1;
      case INTEGER -> ((IntVector) v).get(row);
      case LONG -> ((BigIntVector) v).get(row);
      case FLOAT -> ((Float4Vector) v).get(row);
      case DOUBLE -> ((Float8Vector) v).get(row);
      case DECIMAL -> {
        BigDecimal d = ((DecimalVector) v).getObject(row);
        yield d;
      }
      case DATE -> LocalDate.ofEpochDay(((DateDayVector) v).get(row));
      case TIME -> DateTimeUtil.timeFromMicros(((TimeMicroVector) v).get(row));
      case TIMESTAMP -> {
        long micros = ((TimeStampVector) v).get(row);
        yield ((Types.TimestampType) type).shouldAdjustToUTC()
            ? DateTimeUtil.timestamptzFromMicros(micros)
            : DateTimeUtil.timestampFromMicros(micros);
      }
      case TIMESTAMP_NANO -> {
        long nanos = ((TimeStampVector) v).get(row);
        yield ((Types.TimestampNanoType) type).shouldAdjustToUTC()
            ? DateTimeUtil.timestamptzFromNanos(nanos)
            : DateTimeUtil.timestampFromNanos(nanos);
      }
      case STRING -> new String(((VarCharVector) v).get(row), StandardCharsets.UTF_8);
      case UUID -> UUIDUtil.convert(((FixedSizeBinaryVector) v).get(row));
      case FIXED -> ((FixedSizeBinaryVector) v).get(row);
      case BINARY -> ByteBuffer.wrap(((VarBinaryVector) v).get(row));
      case STRUCT -> {
        StructVector s = (StructVector) v;
        GenericRecord record = GenericRecord.create(type.asStructType());
        List<Types.NestedField> fields = type.asStructType().fields();
        for (int f = 0; f < fields.size(); f++) {
          record.set(f, value(s.getChild(fields.get(f).name()), row, fields.get(f).type()));
        }
        yield record;
      }
      case LIST -> {
        ListVector list = (ListVector) v;
        List<Object> out = new ArrayList<>();
        for (int i = list.getElementStartIndex(row); i < list.getElementEndIndex(row); i++) {
          out.add(value(list.getDataVector(), i, type.asListType().elementType()));
        }
        yield out;
      }
      case MAP -> {
        MapVector map = (MapVector) v;
        StructVector entries = (StructVector) map.getDataVector();
        Map<Object, Object> out = new LinkedHashMap<>();
        for (int i = map.getElementStartIndex(row); i < map.getElementEndIndex(row); i++) {
          out.put(
              value(entries.getChildByOrdinal(0), i, type.asMapType().keyType()),
              value(entries.getChildByOrdinal(1), i, type.asMapType().valueType()));
        }
        yield out;
      }
      default -> throw new IllegalArgumentException("unsupported type " + type);
    };
  }
}
