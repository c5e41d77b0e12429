package dev.floe.flink.sink;

import java.util.Set;
import org.apache.iceberg.HasTableOperations;
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
   * by the table's identifier fields: on format v2 or later, with top-level identifier fields that
   * every partition source column is one of (a key's rows then stay in one partition). Elsewhere
   * they are appended and changelog rows refused; Iceberg's sink would write such a table by key
   * too, but floe deletes by the key columns alone.
   */
  public static RowWriteMode of(Table table, boolean upsert) {
    if (upsert) {
      return UPSERT;
    }
    Set<Integer> keys = table.schema().identifierFieldIds();
    boolean rowLevelDeletes = !(table instanceof HasTableOperations ops) || ops.operations().current().formatVersion() >= 2;
    boolean topLevel = keys.stream().allMatch(id -> table.schema().columns().stream().anyMatch(c -> c.fieldId() == id));
    boolean partitionedByKey = table.spec().fields().stream().allMatch(field -> keys.contains(field.sourceId()));
    return rowLevelDeletes && !keys.isEmpty() && topLevel && partitionedByKey ? DELTA : APPEND;
  }
}
