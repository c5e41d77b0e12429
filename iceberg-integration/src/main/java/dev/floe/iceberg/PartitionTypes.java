package dev.floe.iceberg;

import java.util.Map;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;

/**
 * A file's partition values in the types its spec has now. A column promoted after the file was
 * written (int to long, float to double: by schema evolution, or an {@code ALTER TABLE} while the
 * file's cycle was open) changes the type of its identity and truncate partition fields, and
 * Iceberg refuses a file whose tuple still holds the old type ("Wrong class, expected Long, but was
 * Integer"). The values are the same: a promotion keeps them, as it keeps the rows.
 */
public final class PartitionTypes {
  private PartitionTypes() {}

  /** {@link #align} to {@code table}'s specs; returns the file. */
  static <F extends ContentFile<F>> F aligned(Table table, F file) {
    align(table.specs(), file);
    return file;
  }

  /**
   * Promotes {@code file}'s partition values in place to the types of its spec in {@code specs} (a
   * table's {@code specs()}), where they differ. The file is one this process wrote and has not
   * committed; Iceberg's builders and its JSON form cannot take it while its tuple has the old
   * types, as they check each value's type.
   */
  public static void align(Map<Integer, PartitionSpec> specs, ContentFile<?> file) {
    PartitionSpec spec = specs.get(file.specId());
    StructLike partition = file.partition();
    if (spec == null || spec.isUnpartitioned() || !(partition instanceof PartitionData data)) {
      return;
    }
    Class<?>[] classes = spec.javaClasses();
    for (int i = 0; i < classes.length; i++) {
      Object value = data.get(i, Object.class);
      if (value != null && !classes[i].isInstance(value)) {
        data.set(i, promote(value, classes[i]));
      }
    }
  }

  private static Object promote(Object value, Class<?> to) {
    if (to == Long.class && value instanceof Integer i) {
      return i.longValue();
    }
    if (to == Double.class && value instanceof Float f) {
      return f.doubleValue();
    }
    throw new IllegalArgumentException(
        "a partition value of " + value.getClass().getSimpleName() + " cannot become " + to.getSimpleName());
  }
}
