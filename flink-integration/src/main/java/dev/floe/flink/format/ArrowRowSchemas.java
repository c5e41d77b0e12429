package dev.floe.flink.format;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

/**
 * The Arrow schema that tells libfloe's row decoder a Flink row type: {@code Int8} TINYINT,
 * {@code Int16} SMALLINT, {@code Time32(ms)} TIME, {@code Timestamp(ns)} TIMESTAMP and {@code
 * Timestamp(ns, UTC)} TIMESTAMP_LTZ, {@code Decimal128} DECIMAL, {@code Utf8} CHAR/VARCHAR,
 * {@code Binary} BINARY/VARBINARY, struct ROW, list ARRAY, map with string keys MAP. A timestamp
 * field carries its Flink precision in the metadata {@link #TIMESTAMP_PRECISION}, which binary rows
 * need.
 */
final class ArrowRowSchemas {
  /** libfloe's {@code TIMESTAMP_PRECISION}. */
  static final String TIMESTAMP_PRECISION = "floe.flink.timestamp_precision";

  private ArrowRowSchemas() {}

  /** Whether rows of this type can be Flink binary rows natively: no MAP anywhere in them. */
  static boolean binaryRowsFit(LogicalType type) {
    return type.getTypeRoot() != LogicalTypeRoot.MAP
        && type.getChildren().stream().allMatch(ArrowRowSchemas::binaryRowsFit);
  }

  /** The row type's schema, or null if it holds a type the native decoder leaves to Flink. */
  static Schema of(RowType rowType) {
    List<Field> fields = new ArrayList<>();
    for (RowType.RowField f : rowType.getFields()) {
      Field field = field(f.getName(), f.getType());
      if (field == null) {
        return null;
      }
      fields.add(field);
    }
    return new Schema(fields);
  }

  private static Field field(String name, LogicalType type) {
    List<Field> children = new ArrayList<>();
    ArrowType arrow =
        switch (type.getTypeRoot()) {
          case BOOLEAN -> ArrowType.Bool.INSTANCE;
          case TINYINT -> new ArrowType.Int(8, true);
          case SMALLINT -> new ArrowType.Int(16, true);
          case INTEGER -> new ArrowType.Int(32, true);
          case BIGINT -> new ArrowType.Int(64, true);
          case FLOAT -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
          case DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
          case DATE -> new ArrowType.Date(DateUnit.DAY);
          case TIME_WITHOUT_TIME_ZONE -> new ArrowType.Time(TimeUnit.MILLISECOND, 32);
          case TIMESTAMP_WITHOUT_TIME_ZONE -> new ArrowType.Timestamp(TimeUnit.NANOSECOND, null);
          case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC");
          case DECIMAL -> {
            DecimalType d = (DecimalType) type;
            yield new ArrowType.Decimal(d.getPrecision(), d.getScale(), 128);
          }
          case CHAR, VARCHAR -> ArrowType.Utf8.INSTANCE;
          case BINARY, VARBINARY -> ArrowType.Binary.INSTANCE;
          case ROW -> {
            for (RowType.RowField f : ((RowType) type).getFields()) {
              Field child = field(f.getName(), f.getType());
              if (child == null) {
                yield null;
              }
              children.add(child);
            }
            yield ArrowType.Struct.INSTANCE;
          }
          case ARRAY -> {
            Field element = field("element", ((ArrayType) type).getElementType());
            if (element == null) {
              yield null;
            }
            children.add(element);
            yield ArrowType.List.INSTANCE;
          }
          case MAP -> {
            MapType map = (MapType) type;
            Field value = field("value", map.getValueType());
            if (!(map.getKeyType().getTypeRoot().name().endsWith("CHAR")) || value == null) {
              yield null;
            }
            Field key = new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of());
            children.add(new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(key, value)));
            yield new ArrowType.Map(false);
          }
          default -> null; // MULTISET, INTERVAL, RAW, ...: Flink's decoder alone
        };
    if (arrow == null) {
      return null;
    }
    Map<String, String> metadata =
        arrow instanceof ArrowType.Timestamp
            ? Map.of(TIMESTAMP_PRECISION, Integer.toString(LogicalTypeChecks.getPrecision(type)))
            : null;
    return new Field(name, new FieldType(true, arrow, null, metadata), children);
  }
}
