package dev.floe.iceberg;

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
final class PartitionTypes {
  private PartitionTypes() {}

  /**
   * Promotes {@code file}'s partition values in place to the types of its spec in {@code table},
   * where they differ, and returns the file. The file is one this process wrote and has not
   * committed; Iceberg's builders cannot copy it while its tuple has the old types, as they check
   * each value's type.
   */
  static <F extends ContentFile<F>> F aligned(Table table, F file) {
    PartitionSpec spec = table.specs().get(file.specId());
    StructLike partition = file.partition();
    if (spec == null || spec.isUnpartitioned() || !(partition instanceof PartitionData data)) {
      return file;
    }
    Class<?>[] classes = spec.javaClasses();
    for (int i = 0; i < classes.length; i++) {
      Object value = data.get(i, Object.class);
      if (value != null && !classes[i].isInstance(value)) {
        data.set(i, promote(value, classes[i]));
      }
    }
    return file;
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
