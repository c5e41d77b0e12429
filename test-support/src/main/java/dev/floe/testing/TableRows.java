package dev.floe.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** A table's rows read back by Iceberg's generic reader, keyed for exact comparison in tests. */
public final class TableRows {
  private TableRows() {}

  /**
   * The values of {@code columns} in every row, by the row's long {@code id} column (as the table
   * is now, after a refresh); fails on two rows with one id.
   */
  public static Map<Long, List<Object>> byId(Table table, String id, String... columns) {
    table.refresh();
    Map<Long, List<Object>> out = new TreeMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record row : rows) {
        List<Object> values = new ArrayList<>(columns.length);
        for (String column : columns) {
          values.add(row.getField(column));
        }
        if (out.put((Long) row.getField(id), values) != null) {
          throw new AssertionError("two rows with " + id + " " + row.getField(id) + " in " + table.name());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
