package dev.floe.arrow;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;

/** Arrow values in the same plain form {@link ParquetReadBack} produces, for exact comparison. */
final class ArrowValues {
  private ArrowValues() {}

  static List<Map<String, Object>> rows(VectorSchemaRoot root) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (int i = 0; i < root.getRowCount(); i++) {
      Map<String, Object> row = new LinkedHashMap<>();
      for (var vector : root.getFieldVectors()) {
        row.put(vector.getName(), value(vector, i));
      }
      rows.add(row);
    }
    return rows;
  }

  static Object value(ValueVector v, int i) {
    if (v.isNull(i)) {
      return null;
    }
    return switch (v) {
      case BitVector b -> b.get(i) == 1;
      case IntVector x -> x.get(i);
      case DateDayVector x -> x.get(i);
      case BigIntVector x -> x.get(i);
      case TimeMicroVector x -> x.get(i);
      case TimeStampVector x -> x.get(i);
      case Float4Vector x -> x.get(i);
      case Float8Vector x -> x.get(i);
      case DecimalVector x -> x.getObject(i).unscaledValue();
      case VarCharVector x -> new String(x.get(i), StandardCharsets.UTF_8);
      case LargeVarCharVector x -> new String(x.get(i), StandardCharsets.UTF_8);
      case VarBinaryVector x -> HexFormat.of().formatHex(x.get(i));
      case LargeVarBinaryVector x -> HexFormat.of().formatHex(x.get(i));
      case FixedSizeBinaryVector x -> HexFormat.of().formatHex(x.get(i));
      case MapVector m -> map(m, i);
      case ListVector l -> list(l, i);
      case StructVector s -> struct(s, i);
      case BaseFixedWidthVector x -> throw new IllegalArgumentException("unhandled " + x);
      default -> throw new IllegalArgumentException("unhandled vector " + v.getClass());
    };
  }

  private static List<Object> list(ListVector l, int i) {
    List<Object> out = new ArrayList<>();
    for (int j = l.getElementStartIndex(i); j < l.getElementEndIndex(i); j++) {
      out.add(value(l.getDataVector(), j));
    }
    return out;
  }

  private static Map<Object, Object> map(MapVector m, int i) {
    StructVector entries = (StructVector) m.getDataVector();
    ValueVector keys = entries.getChildByOrdinal(0);
    ValueVector values = entries.getChildByOrdinal(1);
    Map<Object, Object> out = new LinkedHashMap<>();
    for (int j = m.getElementStartIndex(i); j < m.getElementEndIndex(i); j++) {
      out.put(value(keys, j), value(values, j));
    }
    return out;
  }

  private static Map<String, Object> struct(StructVector s, int i) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (var child : s.getChildrenFromFields()) {
      out.put(child.getName(), value(child, i));
    }
    return out;
  }
}
