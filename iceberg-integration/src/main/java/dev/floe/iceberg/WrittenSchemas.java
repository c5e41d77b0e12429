package dev.floe.iceberg;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Whether files written with some schemas still read as a table's current schema. Readers find a
 * file's columns by field id, so a column renamed, added or dropped since is harmless, and so is a
 * type Iceberg promotes (int to long, float to double, a wider decimal). But replacing a table
 * ({@code CREATE OR REPLACE TABLE}) keeps each column's id by name with any new type: files written
 * before it would hold a {@code long} where readers now expect a {@code string}, and no Iceberg
 * commit checks that; nor that a column written optional, whose files may hold nulls, is now
 * required. Checked against the table a commit applies to.
 */
public final class WrittenSchemas {
  private WrittenSchemas() {}

  /**
   * The fields of {@code written} whose type {@code current} reads differently (each one line:
   * id, names, both types); empty when every file written with them reads as {@code current}.
   */
  public static List<String> misfits(Collection<Schema> written, Schema current) {
    Set<String> misfits = new LinkedHashSet<>();
    for (Schema schema : written) {
      for (Types.NestedField field : TypeUtil.indexById(schema.asStruct()).values()) {
        Types.NestedField now = current.findField(field.fieldId());
        if (now == null) {
          continue;
        }
        String was = schema.findColumnName(field.fieldId());
        String is = current.findColumnName(field.fieldId());
        String renamed = is.equals(was) ? "" : "'" + is + "' ";
        if (!readsAs(field.type(), now.type())) {
          misfits.add("field " + field.fieldId() + " '" + was + "' written as " + field.type() + " is now " + renamed
              + now.type());
        } else if (field.isOptional() && now.isRequired()) {
          misfits.add("field " + field.fieldId() + " '" + was + "' written optional (its files may hold nulls) is now "
              + renamed + "required");
        }
      }
    }
    return new ArrayList<>(misfits);
  }

  /** Nested types by kind only: their fields are checked by id on their own. */
  private static boolean readsAs(Type written, Type now) {
    if (written.isPrimitiveType() && now.isPrimitiveType()) {
      return written.equals(now) || TypeUtil.isPromotionAllowed(written, now.asPrimitiveType());
    }
    return written.typeId() == now.typeId();
  }
}
