package dev.floe.flink.sink;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.flink.RowDataWrapper;
import org.apache.iceberg.types.Types;

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

  private RowKeySelector(Schema schema, RowType rowType, PartitionSpec spec) {
    this.schema = inRowOrder(schema, rowType);
    this.rowType = rowType;
    this.spec = spec;
  }

  static RowKeySelector byPartition(Schema schema, PartitionSpec spec, RowType rowType) {
    return new RowKeySelector(schema, rowType, spec);
  }

  static RowKeySelector byIdentifierFields(Schema schema, RowType rowType) {
    if (schema.identifierFieldIds().isEmpty()) {
      throw new IllegalArgumentException("keying by identifier fields needs a table that has some");
    }
    return new RowKeySelector(schema, rowType, null);
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
