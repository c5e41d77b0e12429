package dev.floe.flink.sink;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;

/**
 * A job's row type against its table's schema as it is when a writer starts, which may have
 * changed since the job was planned against schema {@code plannedSchemaId} (the sink checked the
 * rows against that one): a writer restored after a column was renamed or dropped must go on
 * writing, not fail on every restore. Each top-level field follows its column by field id, as
 * Iceberg's Flink sink writes by the ids of the schema it was built with: under the column's
 * current name if it was renamed, nowhere if it was dropped. When the planned schema is not known
 * (or no longer kept by the table) the fields are matched by name as planned, and a field the
 * table lacks is refused.
 *
 * @param rowType the rows' type with each field under its column's current name, and each field
 *     of a dropped column under a name no column has (rows are read by position, so the rows
 *     themselves are unchanged)
 * @param renamed row field name to its column's current name
 * @param dropped the fields (by {@link #rowType}'s names) whose columns the table dropped
 */
record RowsAgainstTable(RowType rowType, Map<String, String> renamed, Set<String> dropped) {

  static RowsAgainstTable of(Table table, RowType planned, Integer plannedSchemaId) {
    Schema current = table.schema();
    Schema plannedSchema = plannedSchemaId == null ? null : table.schemas().get(plannedSchemaId);
    if (plannedSchema == null || plannedSchemaId == current.schemaId()) {
      return new RowsAgainstTable(planned, Map.of(), Set.of());
    }
    Map<String, String> renamed = new LinkedHashMap<>();
    List<String> dropped = new ArrayList<>();
    List<RowType.RowField> fields = new ArrayList<>();
    for (RowType.RowField field : planned.getFields()) {
      Types.NestedField then = plannedSchema.asStruct().field(field.getName());
      Types.NestedField now = then == null ? null : current.asStruct().field(then.fieldId());
      String name = field.getName();
      if (then != null && now == null) {
        name = field.getName() + " (dropped column " + then.fieldId() + ")";
        dropped.add(name);
      } else if (now != null && !now.name().equals(field.getName())) {
        name = now.name();
        renamed.put(field.getName(), name);
      }
      fields.add(new RowType.RowField(name, field.getType(), field.getDescription().orElse(null)));
    }
    return new RowsAgainstTable(new RowType(planned.isNullable(), fields), Map.copyOf(renamed), Set.copyOf(dropped));
  }

  /** Whether rows carry fields the table dropped: the writer then takes the others alone. */
  boolean dropsFields() {
    return !dropped.isEmpty();
  }
}
