package dev.floe.bench;

import java.util.Objects;

/**
 * One generated column: a value for every row, kept in a plain Java array so that the Arrow
 * batches and the Iceberg records are built from exactly the same values.
 *
 * @param fieldId the Iceberg field id, also written as the Arrow field's {@code PARQUET:field_id}
 * @param values {@code long[]} (INT64, TIMESTAMP_MICROS), {@code int[]} (INT32), {@code double[]}
 *     (FLOAT64) or {@code String[]} (UTF8; null entries only in nullable columns)
 */
record Column(int fieldId, String name, Type type, boolean nullable, Object values) {

  /** The column types the benchmarks use. */
  enum Type {
    INT64,
    INT32,
    FLOAT64,
    UTF8,
    /** Microseconds since the epoch, no zone (Iceberg {@code timestamp}). */
    TIMESTAMP_MICROS
  }

  Column {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Class<?> expected =
        switch (type) {
          case INT64, TIMESTAMP_MICROS -> long[].class;
          case INT32 -> int[].class;
          case FLOAT64 -> double[].class;
          case UTF8 -> String[].class;
        };
    if (values.getClass() != expected) {
      throw new IllegalArgumentException(name + ": " + type + " needs " + expected.getSimpleName());
    }
  }

  static Column int64(int fieldId, String name, long[] values) {
    return new Column(fieldId, name, Type.INT64, false, values);
  }

  static Column int32(int fieldId, String name, int[] values) {
    return new Column(fieldId, name, Type.INT32, false, values);
  }

  static Column float64(int fieldId, String name, double[] values) {
    return new Column(fieldId, name, Type.FLOAT64, false, values);
  }

  static Column utf8(int fieldId, String name, boolean nullable, String[] values) {
    return new Column(fieldId, name, Type.UTF8, nullable, values);
  }

  static Column timestampMicros(int fieldId, String name, long[] values) {
    return new Column(fieldId, name, Type.TIMESTAMP_MICROS, false, values);
  }
}
