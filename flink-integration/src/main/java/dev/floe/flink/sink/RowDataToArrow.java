package dev.floe.flink.sink;

import dev.floe.iceberg.ArrowSchemas;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
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
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Appends Flink {@link RowData} to an Arrow batch of an Iceberg schema, the batch floe's native
 * writer encodes. Columns are matched to the row's fields by name, so the row type's field order
 * does not matter; a table column the rows lack stays null (it must be optional), a row field the
 * table lacks is refused up front unless the batch is a projection (the key columns of deletes).
 * Values take Iceberg's representation: timestamps and times in microseconds (nanoseconds for
 * {@code timestamp_ns}), decimals at the table's scale, narrower integers widened to int or long
 * and {@code FLOAT} to double.
 *
 * <p>Append rows, write {@link #root()}, then {@link #reset()} for the next batch. Not
 * thread-safe; owns its vectors until {@link #close()}.
 */
final class RowDataToArrow implements AutoCloseable {
  private final VectorSchemaRoot root;
  private final FieldWriter[] writers;
  private final int[] positions;
  private final RowSource source = new RowSource();
  private int rows;

  /**
   * @param schema the Iceberg columns of the batch (the table's, or its key columns)
   * @param rowType the rows' type
   * @param projection whether row fields outside {@code schema} are allowed (and ignored)
   */
  RowDataToArrow(Schema schema, RowType rowType, boolean projection, BufferAllocator allocator) {
    this(schema, rowType, projection, Set.of(), allocator);
  }

  /**
   * As {@link #RowDataToArrow(Schema, RowType, boolean, BufferAllocator)}, with the row fields
   * {@code ignored} (of columns the table dropped) left out, and any other field outside {@code
   * schema} refused unless the batch is a projection.
   */
  RowDataToArrow(Schema schema, RowType rowType, boolean projection, Set<String> ignored, BufferAllocator allocator) {
    if (!projection) {
      for (String name : rowType.getFieldNames()) {
        if (schema.findField(name) == null && !ignored.contains(name)) {
          throw new IllegalArgumentException(
              "the rows have a field '" + name + "' that the table lacks; its columns are " + columnNames(schema));
        }
      }
    }
    this.root = VectorSchemaRoot.create(ArrowSchemas.toArrow(schema), allocator);
    List<Types.NestedField> columns = schema.columns();
    this.writers = new FieldWriter[columns.size()];
    this.positions = new int[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      Types.NestedField column = columns.get(c);
      positions[c] = rowType.getFieldIndex(column.name());
      if (positions[c] < 0 && column.isRequired()) {
        throw new IllegalArgumentException("the rows lack the table's required column '" + column.name() + "'");
      }
      LogicalType type = positions[c] < 0 ? null : rowType.getTypeAt(positions[c]);
      writers[c] = positions[c] < 0 ? null : writer(root.getVector(c), column, type, column.name());
    }
    root.allocateNew();
  }

  /**
   * Refuses rows of {@code rowType} that the columns of {@code schema} do not take, with the
   * message a writer would fail with, naming {@code table}; with {@code checkNullability}, also a
   * field that may be null for a required column.
   */
  static void requireFits(Schema schema, RowType rowType, String table, boolean checkNullability) {
    try (BufferAllocator allocator = new RootAllocator();
        RowDataToArrow probe = new RowDataToArrow(schema, rowType, false, allocator)) {
      // made: every field has its column, every column's type takes its field's
      if (checkNullability) {
        requireNonNullable(schema.asStruct(), rowType, "");
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("table " + table + " cannot take the rows: " + e.getMessage(), e);
    }
  }

  private static List<String> columnNames(Schema schema) {
    return schema.columns().stream().map(Types.NestedField::name).toList();
  }

  /** Appends one row. */
  void append(RowData row) {
    source.row = row;
    for (int c = 0; c < writers.length; c++) {
      if (writers[c] == null) {
        root.getVector(c).setNull(rows);
      } else {
        writers[c].write(source, positions[c], rows);
      }
    }
    rows++;
  }

  int rowCount() {
    return rows;
  }

  /** The batch of the rows appended since the last {@link #reset()}; valid until then. */
  VectorSchemaRoot root() {
    root.setRowCount(rows);
    return root;
  }

  /**
   * Empties the batch for the next rows, on new buffers: libfloe may still hold the written ones
   * (it encodes rows in column runs, after the write returns), so they must not be overwritten.
   */
  void reset() {
    root.clear();
    root.allocateNew();
    rows = 0;
  }

  @Override
  public void close() {
    root.close();
  }

  // ---- the writers: one per column (and nested field), chosen once from both types ----

  private static FieldWriter writer(FieldVector vector, Types.NestedField field, LogicalType flink, String path) {
    Type type = field.type();
    requireWritable(type, flink, path);
    boolean required = field.isRequired();
    return switch (type.typeId()) {
      case BOOLEAN -> new FieldWriter(vector, required, path) {
        void set(Source s, int pos, int i) {
          ((BitVector) vector).setSafe(i, s.getBoolean(pos) ? 1 : 0);
        }
      };
      case INTEGER -> switch (flink.getTypeRoot()) {
        case TINYINT -> new FieldWriter(vector, required, path) {
          void set(Source s, int pos, int i) {
            ((IntVector) vector).setSafe(i, s.getByte(pos));
          }
        };
        case SMALLINT -> new FieldWriter(vector, required, path) {
          void set(Source s, int pos, int i) {
            ((IntVector) vector).setSafe(i, s.getShort(pos));
          }
        };
        default -> new FieldWriter(vector, required, path) {
          void set(Source s, int pos, int i) {
            ((IntVector) vector).setSafe(i, s.getInt(pos));
          }
        };
      };
      // Narrower integers and floats widen (Iceberg's type promotions): each is read at its own
      // width, since a binary row's slot holds only that many bytes.
      case LONG -> switch (flink.getTypeRoot()) {
        case TINYINT -> new FieldWriter(vector, required, path) {
          void set(Source s, int pos, int i) {
            ((BigIntVector) vector).setSafe(i, s.getByte(pos));
          }
        };
        case SMALLINT -> new FieldWriter(vector, required, path) {
          void set(Source s, int pos, int i) {
            ((BigIntVector) vector).setSafe(i, s.getShort(pos));
          }
        };
        case INTEGER -> new FieldWriter(vector, required, path) {
          void set(Source s, int pos, int i) {
            ((BigIntVector) vector).setSafe(i, s.getInt(pos));
          }
        };
        default -> new FieldWriter(vector, required, path) {
          void set(Source s, int pos, int i) {
            ((BigIntVector) vector).setSafe(i, s.getLong(pos));
          }
        };
      };
      case FLOAT -> new FieldWriter(vector, required, path) {
        void set(Source s, int pos, int i) {
          ((Float4Vector) vector).setSafe(i, s.getFloat(pos));
        }
      };
      case DOUBLE -> flink.getTypeRoot() == LogicalTypeRoot.FLOAT
          ? new FieldWriter(vector, required, path) {
              void set(Source s, int pos, int i) {
                ((Float8Vector) vector).setSafe(i, s.getFloat(pos));
              }
            }
          : new FieldWriter(vector, required, path) {
              void set(Source s, int pos, int i) {
                ((Float8Vector) vector).setSafe(i, s.getDouble(pos));
              }
            };
      case DATE -> new FieldWriter(vector, required, path) {
        void set(Source s, int pos, int i) {
          ((DateDayVector) vector).setSafe(i, s.getInt(pos));
        }
      };
      case TIME -> new FieldWriter(vector, required, path) { // Flink: millisecond of the day
        void set(Source s, int pos, int i) {
          ((TimeMicroVector) vector).setSafe(i, s.getInt(pos) * 1_000L);
        }
      };
      case TIMESTAMP, TIMESTAMP_NANO -> timestamps(vector, required, path, flink, type.typeId() == Type.TypeID.TIMESTAMP_NANO);
      case DECIMAL -> decimals(vector, required, path, (Types.DecimalType) type, flink);
      case STRING -> new FieldWriter(vector, required, path) {
        void set(Source s, int pos, int i) {
          StringData text = s.getString(pos);
          // A binary string on one heap segment is copied straight from it, not through toBytes()
          if (text instanceof BinaryStringData binary && onOneHeapSegment(binary)) {
            ((VarCharVector) vector)
                .setSafe(i, binary.getSegments()[0].getHeapMemory(), binary.getOffset(), binary.getSizeInBytes());
          } else {
            ((VarCharVector) vector).setSafe(i, text.toBytes());
          }
        }
      };
      case BINARY -> new FieldWriter(vector, required, path) {
        void set(Source s, int pos, int i) {
          ((VarBinaryVector) vector).setSafe(i, s.getBinary(pos));
        }
      };
      case FIXED, UUID -> new FieldWriter(vector, required, path) {
        void set(Source s, int pos, int i) {
          byte[] bytes = s.getBinary(pos);
          FixedSizeBinaryVector fixed = (FixedSizeBinaryVector) vector;
          if (bytes.length != fixed.getByteWidth()) {
            throw new IllegalArgumentException(
                "column '" + path + "' holds " + fixed.getByteWidth() + " bytes, not " + bytes.length);
          }
          fixed.setSafe(i, bytes);
        }
      };
      case STRUCT -> new StructWriter((StructVector) vector, type.asStructType(), (RowType) flink, required, path);
      case LIST -> new ListWriter((ListVector) vector, type.asListType(), (ArrayType) flink, required, path);
      case MAP -> new MapWriter((MapVector) vector, type.asMapType(), (MapType) flink, required, path);
      default -> throw new IllegalArgumentException("column '" + path + "' has type " + type + ", which floe does not write");
    };
  }

  /**
   * Refuses a row field whose Flink type is not the column's (as Iceberg's Flink module maps types)
   * or one Iceberg promotes to it (narrower integers, FLOAT to double), as Iceberg's sink refuses
   * the write schema: a binary row's slot would otherwise be read at the column's width (a BIGINT
   * read as an INT), and a local timestamp taken for an instant or the other way round.
   */
  private static void requireWritable(Type type, LogicalType flink, String path) {
    EnumSet<LogicalTypeRoot> accepted = switch (type.typeId()) {
      case BOOLEAN -> EnumSet.of(LogicalTypeRoot.BOOLEAN);
      case INTEGER -> EnumSet.of(LogicalTypeRoot.TINYINT, LogicalTypeRoot.SMALLINT, LogicalTypeRoot.INTEGER);
      case LONG -> EnumSet.of(LogicalTypeRoot.TINYINT, LogicalTypeRoot.SMALLINT, LogicalTypeRoot.INTEGER, LogicalTypeRoot.BIGINT);
      case FLOAT -> EnumSet.of(LogicalTypeRoot.FLOAT);
      case DOUBLE -> EnumSet.of(LogicalTypeRoot.FLOAT, LogicalTypeRoot.DOUBLE);
      case DATE -> EnumSet.of(LogicalTypeRoot.DATE);
      case TIME -> EnumSet.of(LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE);
      case TIMESTAMP, TIMESTAMP_NANO -> zoned(type)
          ? EnumSet.of(LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE)
          : EnumSet.of(LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE);
      case DECIMAL -> EnumSet.of(LogicalTypeRoot.DECIMAL);
      case STRING -> EnumSet.of(LogicalTypeRoot.CHAR, LogicalTypeRoot.VARCHAR);
      case BINARY, FIXED, UUID -> EnumSet.of(LogicalTypeRoot.BINARY, LogicalTypeRoot.VARBINARY);
      case STRUCT -> EnumSet.of(LogicalTypeRoot.ROW);
      case LIST -> EnumSet.of(LogicalTypeRoot.ARRAY);
      case MAP -> EnumSet.of(LogicalTypeRoot.MAP);
      default -> EnumSet.allOf(LogicalTypeRoot.class); // refused by name below
    };
    if (!accepted.contains(flink.getTypeRoot())) {
      throw new IllegalArgumentException(
          "column '" + path + "' is " + type + " but the rows hold " + flink + " (Iceberg's sink refuses it too)");
    }
    // Within the right kind: what would be cut, or fail only at the first value that does not fit.
    if (type.typeId() == Type.TypeID.TIMESTAMP && LogicalTypeChecks.getPrecision(flink) > 6) {
      throw new IllegalArgumentException("column '" + path + "' is " + type + " (microseconds) but the rows hold " + flink
          + ", whose nanoseconds it would cut (Iceberg's sink refuses it too)");
    }
    int width = type instanceof Types.FixedType fixed ? fixed.length() : type.typeId() == Type.TypeID.UUID ? 16 : -1;
    if (width >= 0 && !(flink instanceof BinaryType binary && binary.getLength() == width)) {
      throw new IllegalArgumentException("column '" + path + "' is " + type + " but the rows hold " + flink
          + " (only BINARY(" + width + ") fits it; Iceberg's sink refuses it too)");
    }
  }

  /**
   * Refuses a row field that may be null for a required column, as Iceberg's sink refuses such a
   * write schema: otherwise the job would run until its first null and fail then. Checked down
   * through required columns only: below an optional one, Flink SQL cannot declare a field NOT
   * NULL (Calcite makes a nullable row's fields nullable), and Iceberg's sink refuses every such
   * DDL; floe writes it, and a null there fails the job when it comes. Map keys aside (Iceberg's
   * are always required, Flink's nullable unless declared otherwise).
   */
  private static void requireNonNullable(Types.StructType struct, RowType rowType, String parent) {
    for (Types.NestedField field : struct.fields()) {
      int position = rowType.getFieldIndex(field.name());
      if (position >= 0) {
        requireNonNullable(field, rowType.getTypeAt(position), parent.isEmpty() ? field.name() : parent + "." + field.name());
      }
    }
  }

  private static void requireNonNullable(Types.NestedField field, LogicalType flink, String path) {
    if (!field.isRequired()) {
      return;
    }
    if (flink.isNullable()) {
      throw new IllegalArgumentException("column '" + path + "' is required but the rows' " + flink + " may be null"
          + " (declare it NOT NULL; Iceberg's sink refuses it too)");
    }
    switch (field.type().typeId()) {
      case STRUCT -> requireNonNullable(field.type().asStructType(), (RowType) flink, path);
      case LIST -> requireNonNullable(field.type().asListType().fields().getFirst(),
          ((ArrayType) flink).getElementType(), path + ".element");
      case MAP -> requireNonNullable(field.type().asMapType().fields().get(1),
          ((MapType) flink).getValueType(), path + ".value");
      default -> { }
    }
  }

  private static boolean zoned(Type type) {
    return type instanceof Types.TimestampType t ? t.shouldAdjustToUTC() : ((Types.TimestampNanoType) type).shouldAdjustToUTC();
  }

  /** Whether a string's UTF-8 bytes sit in one heap array (materialized first if lazy). */
  private static boolean onOneHeapSegment(BinaryStringData text) {
    text.ensureMaterialized();
    return text.getSegments().length == 1 && !text.getSegments()[0].isOffHeap();
  }

  private static FieldWriter timestamps(FieldVector vector, boolean required, String path, LogicalType flink, boolean nanos) {
    int precision = LogicalTypeChecks.getPrecision(flink);
    return new FieldWriter(vector, required, path) {
      void set(Source s, int pos, int i) {
        TimestampData t = s.getTimestamp(pos, precision);
        long value;
        try {
          value =
              nanos
                  ? Math.addExact(Math.multiplyExact(t.getMillisecond(), 1_000_000L), t.getNanoOfMillisecond())
                  : Math.addExact(Math.multiplyExact(t.getMillisecond(), 1_000L), t.getNanoOfMillisecond() / 1_000);
        } catch (ArithmeticException e) {
          throw new IllegalArgumentException("timestamp " + t + " in column '" + path + "' is outside what the table's "
              + (nanos ? "nanosecond" : "microsecond") + " column holds (a signed 64-bit count since 1970)", e);
        }
        ((org.apache.arrow.vector.TimeStampVector) vector).setSafe(i, value);
      }
    };
  }

  private static FieldWriter decimals(
      FieldVector vector, boolean required, String path, Types.DecimalType iceberg, LogicalType flink) {
    if (!(flink instanceof DecimalType d) || d.getScale() != iceberg.scale() || d.getPrecision() > iceberg.precision()) {
      throw new IllegalArgumentException(
          "column '" + path + "' is " + iceberg + " but the rows hold " + flink + " (same scale, no larger precision)");
    }
    int precision = d.getPrecision();
    int scale = d.getScale();
    boolean compact = DecimalData.isCompact(precision);
    return new FieldWriter(vector, required, path) {
      void set(Source s, int pos, int i) {
        DecimalData value = s.getDecimal(pos, precision, scale);
        if (compact) {
          ((DecimalVector) vector).setSafe(i, value.toUnscaledLong());
        } else {
          ((DecimalVector) vector).setSafe(i, value.toBigDecimal());
        }
      }
    };
  }

  /** Writes one value at index {@code i} of its vector, or a null. */
  private abstract static class FieldWriter {
    final FieldVector vector;
    final boolean required;
    final String path;

    FieldWriter(FieldVector vector, boolean required, String path) {
      this.vector = vector;
      this.required = required;
      this.path = path;
    }

    final void write(Source s, int pos, int i) {
      if (s.isNullAt(pos)) {
        if (required) {
          throw new IllegalArgumentException("null in the table's required column '" + path + "'");
        }
        vector.setNull(i);
      } else {
        set(s, pos, i);
      }
    }

    abstract void set(Source s, int pos, int i);
  }

  private static final class StructWriter extends FieldWriter {
    private final FieldWriter[] children;
    private final int[] positions;
    private final int arity;
    private final RowSource nested = new RowSource();

    StructWriter(StructVector vector, Types.StructType struct, RowType flink, boolean required, String path) {
      super(vector, required, path);
      List<Types.NestedField> fields = struct.fields();
      this.arity = flink.getFieldCount();
      this.children = new FieldWriter[fields.size()];
      this.positions = new int[fields.size()];
      for (int c = 0; c < fields.size(); c++) {
        Types.NestedField field = fields.get(c);
        positions[c] = flink.getFieldIndex(field.name());
        String childPath = path + "." + field.name();
        if (positions[c] < 0) {
          if (field.isRequired()) {
            throw new IllegalArgumentException("the rows lack the table's required field '" + childPath + "'");
          }
          continue;
        }
        children[c] = writer((FieldVector) vector.getChildByOrdinal(c), field, flink.getTypeAt(positions[c]), childPath);
      }
      for (String name : flink.getFieldNames()) {
        if (struct.field(name) == null) {
          throw new IllegalArgumentException("the rows have a field '" + path + "." + name + "' that the table lacks");
        }
      }
    }

    @Override
    void set(Source s, int pos, int i) {
      StructVector struct = (StructVector) vector;
      struct.setIndexDefined(i);
      nested.row = s.getRow(pos, arity);
      for (int c = 0; c < children.length; c++) {
        if (children[c] == null) {
          ((FieldVector) struct.getChildByOrdinal(c)).setNull(i);
        } else {
          children[c].write(nested, positions[c], i);
        }
      }
    }
  }

  private static final class ListWriter extends FieldWriter {
    private final FieldWriter element;
    private final ArraySource elements = new ArraySource();

    ListWriter(ListVector vector, Types.ListType list, ArrayType flink, boolean required, String path) {
      super(vector, required, path);
      this.element =
          writer(vector.getDataVector(), list.fields().getFirst(), flink.getElementType(), path + ".element");
    }

    @Override
    void set(Source s, int pos, int i) {
      ListVector list = (ListVector) vector;
      ArrayData array = s.getArray(pos);
      int start = list.startNewValue(i);
      elements.array = array;
      for (int e = 0; e < array.size(); e++) {
        element.write(elements, e, start + e);
      }
      list.endValue(i, array.size());
    }
  }

  private static final class MapWriter extends FieldWriter {
    private final StructVector entries;
    private final FieldWriter key;
    private final FieldWriter value;
    private final ArraySource keys = new ArraySource();
    private final ArraySource values = new ArraySource();

    MapWriter(MapVector vector, Types.MapType map, MapType flink, boolean required, String path) {
      super(vector, required, path);
      this.entries = (StructVector) vector.getDataVector();
      this.key = writer((FieldVector) entries.getChildByOrdinal(0), map.fields().get(0), flink.getKeyType(), path + ".key");
      this.value = writer((FieldVector) entries.getChildByOrdinal(1), map.fields().get(1), flink.getValueType(), path + ".value");
    }

    @Override
    void set(Source s, int pos, int i) {
      MapVector map = (MapVector) vector;
      MapData data = s.getMap(pos);
      int start = map.startNewValue(i);
      keys.array = data.keyArray();
      values.array = data.valueArray();
      for (int e = 0; e < data.size(); e++) {
        entries.setIndexDefined(start + e);
        key.write(keys, e, start + e);
        value.write(values, e, start + e);
      }
      map.endValue(i, data.size());
    }
  }

  // ---- typed reads of a RowData or an ArrayData position, so each writer serves both ----

  private abstract static class Source {
    abstract boolean isNullAt(int pos);

    abstract boolean getBoolean(int pos);

    abstract byte getByte(int pos);

    abstract short getShort(int pos);

    abstract int getInt(int pos);

    abstract long getLong(int pos);

    abstract float getFloat(int pos);

    abstract double getDouble(int pos);

    abstract StringData getString(int pos);

    abstract byte[] getBinary(int pos);

    abstract DecimalData getDecimal(int pos, int precision, int scale);

    abstract TimestampData getTimestamp(int pos, int precision);

    abstract RowData getRow(int pos, int arity);

    abstract ArrayData getArray(int pos);

    abstract MapData getMap(int pos);
  }

  private static final class RowSource extends Source {
    RowData row;

    boolean isNullAt(int pos) { return row.isNullAt(pos); }
    boolean getBoolean(int pos) { return row.getBoolean(pos); }
    byte getByte(int pos) { return row.getByte(pos); }
    short getShort(int pos) { return row.getShort(pos); }
    int getInt(int pos) { return row.getInt(pos); }
    long getLong(int pos) { return row.getLong(pos); }
    float getFloat(int pos) { return row.getFloat(pos); }
    double getDouble(int pos) { return row.getDouble(pos); }
    StringData getString(int pos) { return row.getString(pos); }
    byte[] getBinary(int pos) { return row.getBinary(pos); }
    DecimalData getDecimal(int pos, int precision, int scale) { return row.getDecimal(pos, precision, scale); }
    TimestampData getTimestamp(int pos, int precision) { return row.getTimestamp(pos, precision); }
    RowData getRow(int pos, int arity) { return row.getRow(pos, arity); }
    ArrayData getArray(int pos) { return row.getArray(pos); }
    MapData getMap(int pos) { return row.getMap(pos); }
  }

  private static final class ArraySource extends Source {
    ArrayData array;

    boolean isNullAt(int pos) { return array.isNullAt(pos); }
    boolean getBoolean(int pos) { return array.getBoolean(pos); }
    byte getByte(int pos) { return array.getByte(pos); }
    short getShort(int pos) { return array.getShort(pos); }
    int getInt(int pos) { return array.getInt(pos); }
    long getLong(int pos) { return array.getLong(pos); }
    float getFloat(int pos) { return array.getFloat(pos); }
    double getDouble(int pos) { return array.getDouble(pos); }
    StringData getString(int pos) { return array.getString(pos); }
    byte[] getBinary(int pos) { return array.getBinary(pos); }
    DecimalData getDecimal(int pos, int precision, int scale) { return array.getDecimal(pos, precision, scale); }
    TimestampData getTimestamp(int pos, int precision) { return array.getTimestamp(pos, precision); }
    RowData getRow(int pos, int arity) { return array.getRow(pos, arity); }
    ArrayData getArray(int pos) { return array.getArray(pos); }
    MapData getMap(int pos) { return array.getMap(pos); }
  }
}
