package dev.floe.arrow.internal;

import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Field names as the Arrow C Data Interface carries them to libfloe: NUL-terminated C strings. A
 * name holding a NUL would arrive cut there ({@code "k\0x"} as {@code "k"}) and its values land
 * in another column, or none (helper-80); such a schema is refused before it is exported.
 */
public final class ExportedNames {
  private ExportedNames() {}

  /** @throws IllegalArgumentException naming the first field whose name holds a NUL */
  public static void requireNoNul(Schema schema) {
    for (Field field : schema.getFields()) {
      requireNoNul(field, "");
    }
  }

  private static void requireNoNul(Field field, String parent) {
    String path = parent + field.getName();
    if (field.getName().indexOf('\0') >= 0) {
      throw new IllegalArgumentException("field '" + path.replace("\0", "\\u0000") + "' has a NUL character in its"
          + " name, which the Arrow C Data Interface cannot carry to libfloe: rename it");
    }
    for (Field child : field.getChildren()) {
      requireNoNul(child, path + ".");
    }
  }
}
