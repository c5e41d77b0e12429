package dev.floe.bench;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;

/** Builds the Iceberg side of a {@link GeneratedTable}: the schema and one record per row. */
final class IcebergRecords {
  private IcebergRecords() {}

  static Schema schema(List<Column> columns) {
    List<Types.NestedField> fields = new ArrayList<>();
    for (Column column : columns) {
      Type type =
          switch (column.type()) {
            case INT64 -> Types.LongType.get();
            case INT32 -> Types.IntegerType.get();
            case FLOAT64 -> Types.DoubleType.get();
            case UTF8 -> Types.StringType.get();
            case TIMESTAMP_MICROS -> Types.TimestampType.withoutZone();
          };
      fields.add(
          column.nullable()
              ? Types.NestedField.optional(column.fieldId(), column.name(), type)
              : Types.NestedField.required(column.fieldId(), column.name(), type));
    }
    return new Schema(fields);
  }

  /** One record per row, with the Java types Iceberg's generic writer expects. */
  static List<Record> build(GeneratedTable table) {
    List<Column> columns = table.columns();
    GenericRecord template = GenericRecord.create(schema(columns));
    List<Record> records = new ArrayList<>(table.rowCount());
    for (int row = 0; row < table.rowCount(); row++) {
      GenericRecord record = template.copy();
      for (int c = 0; c < columns.size(); c++) {
        record.set(c, value(columns.get(c), row));
      }
      records.add(record);
    }
    return records;
  }

  private static Object value(Column column, int row) {
    return switch (column.type()) {
      case INT64 -> ((long[]) column.values())[row];
      case INT32 -> ((int[]) column.values())[row];
      case FLOAT64 -> ((double[]) column.values())[row];
      case UTF8 -> ((String[]) column.values())[row];
      // timestamp without zone: LocalDateTime, the same microseconds as the Arrow side.
      case TIMESTAMP_MICROS -> DateTimeUtil.timestampFromMicros(((long[]) column.values())[row]);
    };
  }
}
