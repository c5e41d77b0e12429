package dev.floe.arrow;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Reads a Parquet file back with parquet-java (an independent reader) into plain Java values:
 * Boolean, Integer, Long, Float, Double, BigInteger (decimal unscaled), String (UTF8), hex String
 * (binary), List, and LinkedHashMap (structs by field name, maps by key).
 */
final class ParquetReadBack {
  private ParquetReadBack() {}

  static ParquetMetadata footer(Path file) throws IOException {
    try (ParquetFileReader reader = open(file)) {
      return reader.getFooter();
    }
  }

  static ParquetFileReader open(Path file) throws IOException {
    return ParquetFileReader.open(new LocalInputFile(file), ParquetReadOptions.builder().build());
  }

  /** Every row as a map from top-level field name to its value. */
  static List<Map<String, Object>> rows(Path file) throws IOException {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (ParquetFileReader reader = open(file)) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      MessageColumnIO columnIO = new ColumnIOFactory().getColumnIO(schema);
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        RecordReader<Group> records =
            columnIO.getRecordReader(pages, new GroupRecordConverter(schema));
        for (long i = 0; i < pages.getRowCount(); i++) {
          rows.add(struct(records.read(), schema));
        }
      }
    }
    return rows;
  }

  private static Map<String, Object> struct(Group group, GroupType type) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (int f = 0; f < type.getFieldCount(); f++) {
      values.put(type.getFieldName(f), optional(group, f, type.getType(f)));
    }
    return values;
  }

  private static Object optional(Group group, int field, Type type) {
    return group.getFieldRepetitionCount(field) == 0 ? null : value(group, field, 0, type);
  }

  private static Object value(Group group, int field, int index, Type type) {
    if (type.isPrimitive()) {
      return primitive(group, field, index, type.asPrimitiveType());
    }
    Group inner = group.getGroup(field, index);
    GroupType groupType = type.asGroupType();
    LogicalTypeAnnotation logical = groupType.getLogicalTypeAnnotation();
    if (logical instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
      GroupType repeated = groupType.getType(0).asGroupType();
      List<Object> list = new ArrayList<>();
      for (int k = 0; k < inner.getFieldRepetitionCount(0); k++) {
        list.add(optional(inner.getGroup(0, k), 0, repeated.getType(0)));
      }
      return list;
    }
    if (logical instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation) {
      GroupType keyValue = groupType.getType(0).asGroupType();
      Map<Object, Object> map = new LinkedHashMap<>();
      for (int k = 0; k < inner.getFieldRepetitionCount(0); k++) {
        Group entry = inner.getGroup(0, k);
        map.put(value(entry, 0, 0, keyValue.getType(0)), optional(entry, 1, keyValue.getType(1)));
      }
      return map;
    }
    return struct(inner, groupType);
  }

  private static Object primitive(Group group, int field, int index, PrimitiveType type) {
    boolean decimal =
        type.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
    return switch (type.getPrimitiveTypeName()) {
      case BOOLEAN -> group.getBoolean(field, index);
      case INT32 ->
          decimal
              ? BigInteger.valueOf(group.getInteger(field, index))
              : (Object) group.getInteger(field, index);
      case INT64 ->
          decimal ? BigInteger.valueOf(group.getLong(field, index)) : (Object) group.getLong(field, index);
      case FLOAT -> group.getFloat(field, index);
      case DOUBLE -> group.getDouble(field, index);
      case BINARY, FIXED_LEN_BYTE_ARRAY -> {
        byte[] bytes = group.getBinary(field, index).getBytes();
        if (decimal) {
          yield new BigInteger(bytes);
        }
        yield type.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
            ? group.getString(field, index)
            : HexFormat.of().formatHex(bytes);
      }
      case INT96 -> throw new IllegalArgumentException("floe never writes INT96");
    };
  }
}
