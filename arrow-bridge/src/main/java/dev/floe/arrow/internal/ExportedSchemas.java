package dev.floe.arrow.internal;

import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * What a schema must be before the Arrow C Data Interface exports it to libfloe, checked for
 * every native object made from one, each failure an {@link IllegalArgumentException} naming the
 * field:
 *
 * <ul>
 *   <li>no NUL in a field's name: names cross as NUL-terminated C strings, so {@code "k\0x"}
 *       arrived as {@code "k"} and its values landed in another column, or none (helper-80);
 *   <li>no type libfloe has no Parquet encoding for: a union panicked in parquet-rs's schema
 *       conversion, and a month-day-nano interval opened a writer whose first batch then failed
 *       it (helper-85). Dictionary-encoded fields are refused too: floe writes and decodes plain
 *       values.
 * </ul>
 */
public final class ExportedSchemas {
  private ExportedSchemas() {}

  /** @throws IllegalArgumentException naming the first field that libfloe cannot take */
  public static void requireExportable(Schema schema) {
    for (Field field : schema.getFields()) {
      requireExportable(field, "");
    }
  }

  private static void requireExportable(Field field, String parent) {
    String path = parent + field.getName();
    if (field.getName().indexOf('\0') >= 0) {
      throw new IllegalArgumentException("field '" + shown(path) + "' has a NUL character in its"
          + " name, which the Arrow C Data Interface cannot carry to libfloe: rename it");
    }
    String unsupported = unsupported(field);
    if (unsupported != null) {
      throw new IllegalArgumentException("field '" + shown(path) + "' is " + unsupported + ", which floe does not write");
    }
    for (Field child : field.getChildren()) {
      requireExportable(child, path + ".");
    }
  }

  private static String unsupported(Field field) {
    if (field.getDictionary() != null) {
      return "dictionary-encoded (decode it to plain values first)";
    }
    return switch (field.getType()) {
      case ArrowType.Union union -> "a union (" + union.getMode() + ")";
      case ArrowType.Interval interval when interval.getUnit() == IntervalUnit.MONTH_DAY_NANO -> "a month-day-nano interval";
      default -> null;
    };
  }

  private static String shown(String path) {
    return path.replace("\0", "\\u0000");
  }
}
