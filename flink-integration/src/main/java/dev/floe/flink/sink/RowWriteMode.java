package dev.floe.flink.sink;

import dev.floe.iceberg.NativeFileWriterFactory;
import org.apache.iceberg.Table;

/**
 * How the {@code RowData} path writes a table's rows, as Iceberg's Flink sink decides it: by
 * upsert mode and by whether the table has identifier fields (its equality fields).
 */
public enum RowWriteMode {
  /** No identifier fields: inserts (and {@code UPDATE_AFTER}) are appended; other kinds are refused. */
  APPEND,
  /**
   * Identifier fields, upsert mode off: {@code INSERT} and {@code UPDATE_AFTER} are inserted, a row
   * replacing only a row of its key written in the same checkpoint; {@code UPDATE_BEFORE} and
   * {@code DELETE} delete their key's rows.
   */
  DELTA,
  /** Upsert mode: every row replaces its key's row; {@code DELETE} deletes it. */
  UPSERT;

  /** Whether every change of a key must reach one writer, in order. */
  public boolean byKey() {
    return this != APPEND;
  }

  /**
   * The mode for {@code table}. Outside upsert mode, rows are written by key where floe can delete
   * whole rows by the table's identifier fields ({@link NativeFileWriterFactory#deltaWritesRefusal}:
   * format v2+, top-level identifier fields, and every older spec with live data partitioned by
   * them; the current spec may partition by any column, each deleted row naming its partition).
   * Elsewhere they are appended and changelog rows refused; Iceberg's sink would write such a table
   * by key too (and fails on v1).
   */
  public static RowWriteMode of(Table table, boolean upsert) {
    if (upsert) {
      return UPSERT;
    }
    return NativeFileWriterFactory.deltaWritesRefusal(table) == null ? DELTA : APPEND;
  }
}
