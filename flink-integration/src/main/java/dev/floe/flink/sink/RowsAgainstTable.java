package dev.floe.flink.sink;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;

/**
 * A job's row type against its table's schema as it is when a writer starts, which may have
 * changed since the job was planned (the sink checked the rows against the schema of then): a
 * writer restored after a column was renamed or dropped must go on writing, as Iceberg's Flink
 * sink does, not fail on every restore. A top-level row field the table no longer has by its name
 * is looked up by name in the table's earlier schemas: if its column still exists under another
 * name (renamed), the field is written there; if not (dropped), its values are not written.
 *
 * @param rowType the rows' type with each renamed field under its column's current name (rows are
 *     read by position, so the rows themselves are unchanged)
 * @param renamed row field name to the column's current name
 * @param dropped row fields whose columns the table dropped
 */
record RowsAgainstTable(RowType rowType, Map<String, String> renamed, List<String> dropped) {

  static RowsAgainstTable of(Table table, RowType planned) {
    Schema current = table.schema();
    Map<String, String> renamed = new LinkedHashMap<>();
    List<String> dropped = new ArrayList<>();
    List<RowType.RowField> fields = new ArrayList<>();
    for (RowType.RowField field : planned.getFields()) {
      String name = field.getName();
      if (current.findField(name) != null) {
        fields.add(field);
        continue;
      }
      Types.NestedField earlier = latestWithName(table, name);
      Types.NestedField now = earlier == null ? null : current.findField(earlier.fieldId());
      if (now != null && now.name().equals(current.findColumnName(now.fieldId())) && planned.getFieldIndex(now.name()) < 0) {
        renamed.put(name, now.name());
        fields.add(new RowType.RowField(now.name(), field.getType(), field.getDescription().orElse(null)));
      } else {
        if (earlier != null) {
          dropped.add(name);
        }
        fields.add(field); // a field no schema had stays, and is refused as before
      }
    }
    RowType rowType = renamed.isEmpty() ? planned : new RowType(planned.isNullable(), fields);
    return new RowsAgainstTable(rowType, Map.copyOf(renamed), List.copyOf(dropped));
  }

  /** Whether rows carry fields the table dropped: the writer then takes the others alone. */
  boolean dropsFields() {
    return !dropped.isEmpty();
  }

  /** The top-level column named {@code name} in the table's latest schema that had one, or null. */
  private static Types.NestedField latestWithName(Table table, String name) {
    Types.NestedField found = null;
    int foundSchema = Integer.MIN_VALUE;
    for (Schema schema : table.schemas().values()) {
      Types.NestedField column = schema.asStruct().field(name);
      if (column != null && schema.schemaId() > foundSchema) {
        found = column;
        foundSchema = schema.schemaId();
      }
    }
    return found;
  }
}
