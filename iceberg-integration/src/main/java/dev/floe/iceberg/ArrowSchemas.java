package dev.floe.iceberg;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SingleValueParser;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Iceberg schemas to Arrow schemas and back, keeping Iceberg field ids in each Arrow field's
 * {@code PARQUET:field_id} metadata (list elements, map keys and values included), so the native
 * writer puts them in the Parquet schema.
 *
 * <p>Type mapping: boolean, int, long, float, double, decimal(P,S) -> decimal128, date -> date32,
 * time -> time64(us), timestamp[tz] -> timestamp(us[, UTC]), timestamp_ns[tz] -> timestamp(ns[,
 * UTC]), string -> utf8, binary -> binary, fixed[L] -> fixed_size_binary(L), uuid ->
 * fixed_size_binary(16) with {@code ARROW:extension:name = arrow.uuid}, struct, list (element
 * field {@code element}), map (entries {@code key}/{@code value}).
 *
 * <p>A primitive field with a {@code write-default} (format v3) carries it in {@code
 * floe.write-default}, as the JSON text the native decoder reads for its type: a message without
 * the field gets that value.
 */
public final class ArrowSchemas {
  /** Arrow field metadata key holding the Iceberg field id. */
  public static final String FIELD_ID = "PARQUET:field_id";
  /** Arrow field metadata key holding a field's write default as JSON (the decoder's input form). */
  public static final String WRITE_DEFAULT = "floe.write-default";

  static final String EXTENSION_NAME = "ARROW:extension:name";
  static final String UUID_EXTENSION = "arrow.uuid";

  private ArrowSchemas() {}

  public static org.apache.arrow.vector.types.pojo.Schema toArrow(Schema schema) {
    List<Field> fields = new ArrayList<>();
    for (Types.NestedField f : schema.columns()) {
      fields.add(toArrow(f));
    }
    return new org.apache.arrow.vector.types.pojo.Schema(fields);
  }

  public static Field toArrow(Types.NestedField field) {
    Field arrow = field(field.name(), field.fieldId(), field.isOptional(), field.type());
    if (field.writeDefault() == null || !field.type().isPrimitiveType()) {
      return arrow;
    }
    Map<String, String> metadata = new HashMap<>(arrow.getMetadata());
    metadata.put(WRITE_DEFAULT, defaultJson(field.type(), field.writeDefault()));
    FieldType type = new FieldType(arrow.isNullable(), arrow.getType(), null, metadata);
    return new Field(arrow.getName(), type, arrow.getChildren());
  }

  /**
   * A default value as JSON the native decoder reads for its type: Iceberg's single-value JSON,
   * except binary and fixed, which the decoder reads as base64 (Iceberg writes hex).
   */
  private static String defaultJson(Type type, Object value) {
    if (type.typeId() == Type.TypeID.BINARY || type.typeId() == Type.TypeID.FIXED) {
      ByteBuffer bytes = ((ByteBuffer) value).duplicate();
      byte[] raw = new byte[bytes.remaining()];
      bytes.get(raw);
      return "\"" + Base64.getEncoder().encodeToString(raw) + "\"";
    }
    return SingleValueParser.toJson(type, value);
  }

  private static Field field(String name, int id, boolean nullable, Type type) {
    Map<String, String> metadata = new HashMap<>();
    metadata.put(FIELD_ID, Integer.toString(id));
    if (type.typeId() == Type.TypeID.UUID) {
      metadata.put(EXTENSION_NAME, UUID_EXTENSION);
    }
    List<Field> children = new ArrayList<>();
    ArrowType arrowType =
        switch (type.typeId()) {
          case BOOLEAN -> ArrowType.Bool.INSTANCE;
          case INTEGER -> new ArrowType.Int(32, true);
          case LONG -> new ArrowType.Int(64, true);
          case FLOAT -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
          case DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
          case DECIMAL -> {
            Types.DecimalType d = (Types.DecimalType) type;
            yield new ArrowType.Decimal(d.precision(), d.scale(), 128);
          }
          case DATE -> new ArrowType.Date(DateUnit.DAY);
          case TIME -> new ArrowType.Time(TimeUnit.MICROSECOND, 64);
          case TIMESTAMP ->
              new ArrowType.Timestamp(
                  TimeUnit.MICROSECOND, ((Types.TimestampType) type).shouldAdjustToUTC() ? "UTC" : null);
          case TIMESTAMP_NANO ->
              new ArrowType.Timestamp(
                  TimeUnit.NANOSECOND, ((Types.TimestampNanoType) type).shouldAdjustToUTC() ? "UTC" : null);
          case STRING -> ArrowType.Utf8.INSTANCE;
          case BINARY -> ArrowType.Binary.INSTANCE;
          case FIXED -> new ArrowType.FixedSizeBinary(((Types.FixedType) type).length());
          case UUID -> new ArrowType.FixedSizeBinary(16);
          case STRUCT -> {
            for (Types.NestedField f : type.asStructType().fields()) {
              children.add(toArrow(f));
            }
            yield ArrowType.Struct.INSTANCE;
          }
          case LIST -> {
            Types.ListType list = type.asListType();
            children.add(field("element", list.elementId(), list.isElementOptional(), list.elementType()));
            yield ArrowType.List.INSTANCE;
          }
          case MAP -> {
            Types.MapType map = type.asMapType();
            Field key = field("key", map.keyId(), false, map.keyType());
            Field value = field("value", map.valueId(), map.isValueOptional(), map.valueType());
            children.add(
                new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(key, value)));
            yield new ArrowType.Map(false);
          }
          default ->
              throw new IllegalArgumentException(
                  "Iceberg type " + type + " of field '" + name + "' has no Arrow mapping in floe");
        };
    return new Field(name, new FieldType(nullable, arrowType, null, metadata), children);
  }

  /**
   * An Iceberg schema for Arrow data. Fields keep the ids in their {@code PARQUET:field_id}
   * metadata; fields without one get fresh ids above the largest id present.
   */
  public static Schema fromArrow(org.apache.arrow.vector.types.pojo.Schema schema) {
    AtomicInteger nextId = new AtomicInteger(maxId(schema.getFields()) + 1);
    List<Types.NestedField> columns = new ArrayList<>();
    for (Field f : schema.getFields()) {
      columns.add(fromArrow(f, nextId));
    }
    return new Schema(columns);
  }

  private static int maxId(List<Field> fields) {
    int max = 0;
    for (Field f : fields) {
      String id = f.getMetadata().get(FIELD_ID);
      if (id != null) {
        max = Math.max(max, Integer.parseInt(id));
      }
      max = Math.max(max, maxId(f.getChildren()));
    }
    return max;
  }

  private static int idOf(Field field, AtomicInteger nextId) {
    String id = field.getMetadata() == null ? null : field.getMetadata().get(FIELD_ID);
    return id != null ? Integer.parseInt(id) : nextId.getAndIncrement();
  }

  private static Types.NestedField fromArrow(Field field, AtomicInteger nextId) {
    int id = idOf(field, nextId);
    Type type = typeOf(field, nextId);
    return Types.NestedField.of(id, field.isNullable(), field.getName(), type);
  }

  private static Type typeOf(Field field, AtomicInteger nextId) {
    ArrowType t = field.getType();
    return switch (t) {
      case ArrowType.Bool b -> Types.BooleanType.get();
      case ArrowType.Int i when i.getIsSigned() && i.getBitWidth() <= 32 -> Types.IntegerType.get();
      case ArrowType.Int i when i.getIsSigned() && i.getBitWidth() == 64 -> Types.LongType.get();
      case ArrowType.FloatingPoint f when f.getPrecision() == FloatingPointPrecision.DOUBLE -> Types.DoubleType.get();
      case ArrowType.FloatingPoint f -> Types.FloatType.get();
      case ArrowType.Decimal d -> Types.DecimalType.of(d.getPrecision(), d.getScale());
      case ArrowType.Date d -> Types.DateType.get();
      case ArrowType.Time tm when tm.getUnit() == TimeUnit.MICROSECOND -> Types.TimeType.get();
      case ArrowType.Timestamp ts when ts.getUnit() == TimeUnit.MICROSECOND ->
          ts.getTimezone() == null ? Types.TimestampType.withoutZone() : Types.TimestampType.withZone();
      case ArrowType.Timestamp ts when ts.getUnit() == TimeUnit.NANOSECOND ->
          ts.getTimezone() == null ? Types.TimestampNanoType.withoutZone() : Types.TimestampNanoType.withZone();
      case ArrowType.Utf8 u -> Types.StringType.get();
      case ArrowType.LargeUtf8 u -> Types.StringType.get();
      case ArrowType.Binary b -> Types.BinaryType.get();
      case ArrowType.LargeBinary b -> Types.BinaryType.get();
      case ArrowType.FixedSizeBinary f
          when f.getByteWidth() == 16 && UUID_EXTENSION.equals(field.getMetadata().get(EXTENSION_NAME)) ->
          Types.UUIDType.get();
      case ArrowType.FixedSizeBinary f -> Types.FixedType.ofLength(f.getByteWidth());
      case ArrowType.Struct s -> {
        List<Types.NestedField> fields = new ArrayList<>();
        for (Field child : field.getChildren()) {
          fields.add(fromArrow(child, nextId));
        }
        yield Types.StructType.of(fields);
      }
      case ArrowType.List l -> {
        Field element = field.getChildren().getFirst();
        int elementId = idOf(element, nextId);
        Type elementType = typeOf(element, nextId);
        yield element.isNullable()
            ? Types.ListType.ofOptional(elementId, elementType)
            : Types.ListType.ofRequired(elementId, elementType);
      }
      case ArrowType.Map m -> {
        Field entries = field.getChildren().getFirst();
        Field key = entries.getChildren().get(0);
        Field value = entries.getChildren().get(1);
        int keyId = idOf(key, nextId);
        int valueId = idOf(value, nextId);
        Type keyType = typeOf(key, nextId);
        Type valueType = typeOf(value, nextId);
        yield value.isNullable()
            ? Types.MapType.ofOptional(keyId, valueId, keyType, valueType)
            : Types.MapType.ofRequired(keyId, valueId, keyType, valueType);
      }
      default ->
          throw new IllegalArgumentException(
              "Arrow type " + t + " of field '" + field.getName() + "' has no Iceberg mapping");
    };
  }
}
