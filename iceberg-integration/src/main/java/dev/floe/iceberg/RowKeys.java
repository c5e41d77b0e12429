package dev.floe.iceberg;

import java.util.Arrays;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The identifier-field values of each row of an Arrow batch as one compact byte key per row,
 * equal exactly when the key values are equal: what upserts match rows by. Reads the vectors'
 * buffers directly; one small array per row is the only allocation. An int key is written as the
 * long it equals, so a key keeps its bytes when schema evolution widens its column (a commit's
 * writers before and after the widening match each other's rows).
 */
final class RowKeys {
  private RowKeys() {}

  /** A row's key bytes, with its hash computed once. */
  record Key(byte[] bytes, int hash) {
    static Key of(byte[] bytes) {
      return new Key(bytes, Arrays.hashCode(bytes));
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && hash == k.hash && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /** The key of every row, from the columns at {@code columns} (non-nullable primitives). */
  static Key[] of(VectorSchemaRoot root, int[] columns) {
    int rows = root.getRowCount();
    Key[] keys = new Key[rows];
    FieldVector[] vectors = new FieldVector[columns.length];
    for (int i = 0; i < columns.length; i++) {
      vectors[i] = root.getVector(columns[i]);
    }
    Buffer buffer = new Buffer();
    for (int row = 0; row < rows; row++) {
      buffer.size = 0;
      for (FieldVector vector : vectors) {
        append(vector, row, buffer);
      }
      keys[row] = Key.of(Arrays.copyOf(buffer.bytes, buffer.size));
    }
    return keys;
  }

  private static void append(FieldVector vector, int row, Buffer out) {
    if (vector.isNull(row)) {
      out.put((byte) 0);
      return;
    }
    out.put((byte) 1);
    switch (vector) {
      case BitVector bits -> out.put((byte) bits.get(row));
      case IntVector ints -> out.putLong(ints.get(row));
      case BaseFixedWidthVector fixed -> {
        int width = fixed.getTypeWidth();
        out.ensure(width);
        fixed.getDataBuffer().getBytes((long) row * width, out.bytes, out.size, width);
        out.size += width;
      }
      case BaseVariableWidthVector variable -> out.putWithLength(variable.get(row));
      case BaseLargeVariableWidthVector variable -> out.putWithLength(variable.get(row));
      default ->
          throw new IllegalArgumentException(
              "identifier field '" + vector.getName() + "' has a type that cannot be a key: " + vector.getField().getType());
    }
  }

  private static final class Buffer {
    byte[] bytes = new byte[64];
    int size;

    void ensure(int more) {
      if (size + more > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
      }
    }

    void put(byte b) {
      ensure(1);
      bytes[size++] = b;
    }

    /** Little-endian, as a long column's data buffer holds it. */
    void putLong(long value) {
      ensure(Long.BYTES);
      for (int i = 0; i < Long.BYTES; i++) {
        bytes[size++] = (byte) (value >>> (8 * i));
      }
    }

    void putWithLength(byte[] value) {
      ensure(4 + value.length);
      int n = value.length;
      bytes[size++] = (byte) (n >>> 24);
      bytes[size++] = (byte) (n >>> 16);
      bytes[size++] = (byte) (n >>> 8);
      bytes[size++] = (byte) n;
      System.arraycopy(value, 0, bytes, size, n);
      size += n;
    }
  }
}
