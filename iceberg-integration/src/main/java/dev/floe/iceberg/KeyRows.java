package dev.floe.iceberg;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Copies chosen rows of a batch's key columns into a batch of their own (equality-delete rows). */
final class KeyRows {
  private KeyRows() {}

  /**
   * Rows {@code rows[start .. start + count)} of {@code columns} of {@code batch}, as a new batch
   * of {@code keySchema} that the caller closes.
   */
  static VectorSchemaRoot select(
      VectorSchemaRoot batch, int[] columns, Schema keySchema, int[] rows, int start, int count, BufferAllocator allocator) {
    VectorSchemaRoot keys = VectorSchemaRoot.create(keySchema, allocator);
    try {
      keys.allocateNew();
      for (int c = 0; c < columns.length; c++) {
        FieldVector from = batch.getVector(columns[c]);
        FieldVector to = keys.getVector(c);
        for (int i = 0; i < count; i++) {
          to.copyFromSafe(rows[start + i], i, from);
        }
      }
      keys.setRowCount(count);
      return keys;
    } catch (RuntimeException e) {
      keys.close();
      throw e;
    }
  }

  /** Every column of {@code keys}, for {@link #select} of a batch that holds keys only. */
  static int[] allColumns(VectorSchemaRoot keys) {
    int[] columns = new int[keys.getFieldVectors().size()];
    for (int c = 0; c < columns.length; c++) {
      columns[c] = c;
    }
    return columns;
  }
}
