package dev.floe.bench;

import java.lang.reflect.Array;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.data.Record;

/**
 * Rows generated once, column by column, handed out in the two shapes the writers take: Arrow
 * batches for floe and Iceberg generic records for Iceberg Java.
 */
record GeneratedTable(String name, int rowCount, List<Column> columns) {

  GeneratedTable {
    columns = List.copyOf(columns);
    for (Column column : columns) {
      if (Array.getLength(column.values()) != rowCount) {
        throw new IllegalArgumentException(column.name() + " does not have " + rowCount + " rows");
      }
    }
  }

  org.apache.arrow.vector.types.pojo.Schema arrowSchema() {
    return ArrowBatches.schema(columns);
  }

  org.apache.iceberg.Schema icebergSchema() {
    return IcebergRecords.schema(columns);
  }

  /** Arrow batches of {@code batchRows} rows (the last one may be shorter); the caller closes them. */
  List<VectorSchemaRoot> arrowBatches(BufferAllocator allocator, int batchRows) {
    return ArrowBatches.build(this, allocator, batchRows);
  }

  List<Record> records() {
    return IcebergRecords.build(this);
  }
}
