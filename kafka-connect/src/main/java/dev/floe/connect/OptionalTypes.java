package dev.floe.connect;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * {@code iceberg.tables.schema-force-optional}: a type with everything it holds optional -- struct
 * fields, list elements, map values (keys stay required, as Iceberg demands) -- as Iceberg's
 * connector makes the columns it creates or adds, so that a later record may carry a null
 * anywhere.
 */
final class OptionalTypes {
  private OptionalTypes() {}

  static Type of(Type type) {
    return switch (type.typeId()) {
      case STRUCT -> {
        List<Types.NestedField> fields = new ArrayList<>();
        for (Types.NestedField field : type.asStructType().fields()) {
          fields.add(Types.NestedField.optional(field.fieldId(), field.name(), of(field.type()), field.doc()));
        }
        yield Types.StructType.of(fields);
      }
      case LIST -> {
        Types.ListType list = type.asListType();
        yield Types.ListType.ofOptional(list.elementId(), of(list.elementType()));
      }
      case MAP -> {
        Types.MapType map = type.asMapType();
        yield Types.MapType.ofOptional(map.keyId(), map.valueId(), map.keyType(), of(map.valueType()));
      }
      default -> type;
    };
  }
}
