package dev.floe.flink.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeUtils;

/**
 * Turns a row tape (libfloe's {@code floe_row_decoder_decode}; layout in {@code docs/ffi.md})
 * into the {@link GenericRowData} Flink's {@code json} format builds: the same classes for the
 * same values (boxed primitives, {@link StringData}, {@link DecimalData}, {@link TimestampData},
 * {@code byte[]}, {@link GenericArrayData} of the element's internal class, {@link
 * GenericMapData} over a {@link HashMap}). The readers are chosen once per row type.
 */
final class RowTapeReader {
  private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final int END_OF_ROW = 0xFFFF;

  private final RowReader root;

  RowTapeReader(RowType rowType) {
    this.root = new RowReader(rowType);
  }

  GenericRowData read(MemorySegment tape) {
    return root.read(new Tape(tape));
  }

  /** A position in a tape. */
  private static final class Tape {
    final MemorySegment segment;
    long at;

    Tape(MemorySegment segment) {
      this.segment = segment;
    }

    int u8() {
      return segment.get(ValueLayout.JAVA_BYTE, at++) & 0xFF;
    }

    int u16() {
      int v = segment.get(U16, at) & 0xFFFF;
      at += 2;
      return v;
    }

    int i32() {
      int v = segment.get(I32, at);
      at += 4;
      return v;
    }

    long i64() {
      long v = segment.get(I64, at);
      at += 8;
      return v;
    }

    byte[] bytes() {
      int length = i32();
      byte[] out = new byte[length];
      MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, at, out, 0, length);
      at += length;
      return out;
    }
  }

  /** Reads one value of a type. */
  private interface ValueReader {
    Object read(Tape t);
  }

  private static ValueReader reader(LogicalType type) {
    return switch (type.getTypeRoot()) {
      case BOOLEAN -> t -> t.u8() != 0;
      case TINYINT -> t -> (byte) t.u8();
      case SMALLINT -> t -> (short) t.u16();
      case INTEGER, DATE, TIME_WITHOUT_TIME_ZONE -> Tape::i32;
      case BIGINT -> Tape::i64;
      case FLOAT -> t -> {
        float v = t.segment.get(F32, t.at);
        t.at += 4;
        return v;
      };
      case DOUBLE -> t -> {
        double v = t.segment.get(F64, t.at);
        t.at += 8;
        return v;
      };
      case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> t -> {
        long millis = t.i64();
        return TimestampData.fromEpochMillis(millis, t.i32());
      };
      case DECIMAL -> {
        DecimalType d = (DecimalType) type;
        int precision = d.getPrecision();
        int scale = d.getScale();
        yield t -> t.u8() == 0
            ? DecimalData.fromUnscaledLong(t.i64(), precision, scale)
            : DecimalData.fromBigDecimal(
                new BigDecimal(new BigInteger(new String(t.bytes(), StandardCharsets.US_ASCII)), scale), precision, scale);
      }
      case CHAR, VARCHAR -> t -> StringData.fromBytes(t.bytes());
      case BINARY, VARBINARY -> Tape::bytes;
      case ROW -> new RowReader((RowType) type)::read;
      case ARRAY -> arrays((ArrayType) type);
      case MAP -> maps((MapType) type);
      default -> throw new IllegalArgumentException("no row tape holds " + type);
    };
  }

  private static ValueReader arrays(ArrayType type) {
    ValueReader element = reader(type.getElementType());
    Class<?> elementClass = LogicalTypeUtils.toInternalConversionClass(type.getElementType());
    return t -> {
      int count = t.i32();
      Object[] values = (Object[]) Array.newInstance(elementClass, count);
      for (int i = 0; i < count; i++) {
        values[i] = t.u8() == 0 ? null : element.read(t);
      }
      return new GenericArrayData(values);
    };
  }

  private static ValueReader maps(MapType type) {
    ValueReader value = reader(type.getValueType());
    return t -> {
      int count = t.i32();
      Map<Object, Object> entries = new HashMap<>();
      for (int i = 0; i < count; i++) {
        StringData key = StringData.fromBytes(t.bytes());
        entries.put(key, t.u8() == 0 ? null : value.read(t));
      }
      return new GenericMapData(entries);
    };
  }

  private static final class RowReader {
    private final int arity;
    private final ValueReader[] fields;

    RowReader(RowType type) {
      this.arity = type.getFieldCount();
      this.fields = new ValueReader[arity];
      for (int i = 0; i < arity; i++) {
        fields[i] = reader(type.getTypeAt(i));
      }
    }

    GenericRowData read(Tape t) {
      GenericRowData row = new GenericRowData(arity);
      for (int field = t.u16(); field != END_OF_ROW; field = t.u16()) {
        row.setField(field, fields[field].read(t));
      }
      return row;
    }
  }
}
