package dev.floe.flink.sink;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.flink.RowDataWrapper;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.JsonUtil;

/**
 * Keys rows for the shuffle in front of the writers: by partition (Iceberg's {@code
 * DistributionMode.HASH}, so each writer keeps few files open) or by identifier fields (upserts:
 * every change of a key must reach the same writer, in order). The key is a hash of the values in
 * Iceberg's representation, the same on every JVM.
 */
final class RowKeySelector implements KeySelector<RowData, Integer> {
  private static final long serialVersionUID = 1L;

  private final Schema schema;
  private final RowType rowType;
  /** Partition by this spec, or (null) by the identifier fields. */
  private final PartitionSpec spec;
  private transient RowDataWrapper wrapper;
  private transient PartitionKey partition;
  private transient int[] keyColumns;

  /** @param schema the table's columns the rows have, in their order ({@link #inRowOrder}) */
  private RowKeySelector(Schema schema, RowType rowType, PartitionSpec spec) {
    this.schema = schema;
    this.rowType = rowType;
    this.spec = spec;
  }

  /**
   * By partition. A partition field whose source column the rows leave out (an optional column,
   * written as null) has the same value in every row and is left out of the key (helper-78: its
   * accessor failed on the first row, and the job restarted without end).
   *
   * @return null if the rows have none of the partition's source columns: every row is in one partition
   */
  static RowKeySelector byPartition(Schema schema, PartitionSpec spec, RowType rowType) {
    Schema rows = inRowOrder(schema, rowType);
    PartitionSpec keyed = onColumnsOf(rows, spec);
    return keyed.isPartitioned() ? new RowKeySelector(rows, rowType, keyed) : null;
  }

  static RowKeySelector byIdentifierFields(Schema schema, RowType rowType) {
    if (schema.identifierFieldIds().isEmpty()) {
      throw new IllegalArgumentException("keying by identifier fields needs a table that has some");
    }
    return new RowKeySelector(inRowOrder(schema, rowType), rowType, null);
  }

  /** {@code spec} without the fields whose source columns {@code rows} lacks, bound to {@code rows}. */
  private static PartitionSpec onColumnsOf(Schema rows, PartitionSpec spec) {
    if (spec.fields().stream().allMatch(field -> rows.findField(field.sourceId()) != null)) {
      return spec;
    }
    // Iceberg's spec builder takes transforms by name only; its JSON form keeps them as they are
    try {
      ObjectNode json = (ObjectNode) JsonUtil.mapper().readTree(PartitionSpecParser.toJson(spec));
      ArrayNode kept = json.putArray("fields");
      for (PartitionField field : spec.fields()) {
        if (rows.findField(field.sourceId()) != null) {
          kept.add(JsonUtil.mapper().valueToTree(Map.of(
              "name", field.name(), "transform", field.transform().toString(),
              "source-id", field.sourceId(), "field-id", field.fieldId())));
        }
      }
      return PartitionSpecParser.fromJson(rows, json);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e); // Iceberg's own JSON of a spec
    }
  }

  /** The table's columns that the rows have, in the rows' order: what {@link RowDataWrapper} reads by position. */
  private static Schema inRowOrder(Schema schema, RowType rowType) {
    List<Types.NestedField> columns = new ArrayList<>();
    for (String name : rowType.getFieldNames()) {
      Types.NestedField column = schema.findField(name);
      if (column == null) {
        throw new IllegalArgumentException("the rows have a field '" + name + "' that the table lacks");
      }
      columns.add(column);
    }
    return new Schema(columns, schema.identifierFieldIds());
  }

  @Override
  public Integer getKey(RowData row) {
    if (wrapper == null) {
      wrapper = new RowDataWrapper(rowType, schema.asStruct());
      if (spec != null) {
        partition = new PartitionKey(spec, schema);
      } else {
        keyColumns =
            schema.identifierFieldIds().stream()
                .sorted()
                .mapToInt(id -> schema.columns().indexOf(schema.findField(id)))
                .toArray();
      }
    }
    StructLike values = wrapper.wrap(row);
    if (spec != null) {
      partition.partition(values);
      return hash(partition, null);
    }
    return hash(values, keyColumns);
  }

  private static int hash(StructLike values, int[] columns) {
    // Arrays.hashCode's formula, without an array per row.
    int size = columns == null ? values.size() : columns.length;
    int hash = 1;
    for (int i = 0; i < size; i++) {
      Object value = values.get(columns == null ? i : columns[i], Object.class);
      // A string may come as another CharSequence: hash its text.
      hash = 31 * hash + Objects.hashCode(value instanceof CharSequence text ? text.toString() : value);
    }
    return hash;
  }
}
