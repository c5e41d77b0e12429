package dev.floe.connect;

import dev.floe.iceberg.SchemaEvolution;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Schema evolution from a record's Connect schema (Struct values: {@code JsonConverter} with
 * schemas, Avro, Protobuf), as Iceberg's connector evolves a table: a field the table lacks
 * becomes an optional column of the Iceberg type its Connect schema maps to (Date -> date, Time
 * -> time, Timestamp -> timestamptz, Decimal -> decimal(38, scale), bytes -> binary, maps -> maps,
 * INT8 and INT16 -> int), an int column whose field is INT64 becomes long and a float column whose
 * field is FLOAT64 double, and a required column whose field is optional becomes optional. The JSON
 * the record is written as could not tell these apart (a Timestamp is a number there, a Map an
 * object), so the types come from the schema, before the record is queued; the decoder's own
 * evolution then finds the columns there.
 *
 * <p>A field that differs from a column only in case is not added (logged), as in the decoder's
 * evolution. Identifier fields (and the structs holding them) stay required: Iceberg refuses
 * optional ones, so an optional Connect field for one is left as it is (a null there is a bad
 * record). A struct with no fields (Protobuf's {@code Empty}) is not added: Parquet cannot write
 * it.
 */
final class ConnectSchemaEvolution {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectSchemaEvolution.class);

  private ConnectSchemaEvolution() {}

  /** Whether {@code record} asks anything of {@code schema} (no I/O: a check per new Connect schema). */
  static boolean asksAnything(org.apache.iceberg.Schema schema, Schema record) {
    return !plan(schema, record, null, false).isEmpty();
  }

  /**
   * Evolves {@code table} for {@code record} (refreshed first; planned again after a conflicting
   * commit).
   *
   * @return true if this call changed the schema
   */
  static boolean evolve(Table table, Schema record, boolean forceOptional) {
    return SchemaEvolution.commit(table, current -> {
      UpdateSchema update = current.updateSchema();
      return new SchemaEvolution.Planned(update,
          plan(current.schema(), record, update, forceOptional, SchemaEvolution.partitionFieldNames(current)));
    });
  }

  /**
   * Puts into {@code update} (if not null) what {@code record} asks of {@code schema}; describes each
   * change. With {@code forceOptional} ({@code iceberg.tables.schema-force-optional}), what a new
   * column holds is optional at every level, as in Iceberg's connector.
   */
  static List<String> plan(
      org.apache.iceberg.Schema schema, Schema record, UpdateSchema update, boolean forceOptional) {
    return plan(schema, record, update, forceOptional, Set.of());
  }

  /** As above, not adding columns named as a partition field ({@link SchemaEvolution#partitionFieldNames}). */
  private static List<String> plan(org.apache.iceberg.Schema schema, Schema record, UpdateSchema update,
      boolean forceOptional, Set<String> partitionNames) {
    List<String> changes = new ArrayList<>();
    if (record.type() == Schema.Type.STRUCT) {
      Set<String> taken = SchemaEvolution.lowerCaseNames(schema);
      taken.addAll(partitionNames);
      planStruct(new Plan(schema, keyColumns(schema), update, changes, taken, forceOptional), null, schema.asStruct(),
          record);
    }
    return changes;
  }

  /** The schema planned against, its identifier fields and the structs holding them, and what is planned. */
  private record Plan(org.apache.iceberg.Schema schema, Set<Integer> keyColumns, UpdateSchema update,
      List<String> changes, Set<String> taken, boolean forceOptional) {}

  /** The identifier fields' ids and those of the structs that hold them: they must stay required. */
  private static Set<Integer> keyColumns(org.apache.iceberg.Schema schema) {
    Map<Integer, Integer> parents = org.apache.iceberg.types.TypeUtil.indexParents(schema.asStruct());
    Set<Integer> ids = new HashSet<>();
    for (Integer id : schema.identifierFieldIds()) {
      for (Integer at = id; at != null; at = parents.get(at)) {
        ids.add(at);
      }
    }
    return ids;
  }

  private static void planStruct(Plan plan, String parentName, Types.StructType struct, Schema record) {
    UpdateSchema update = plan.update();
    List<String> changes = plan.changes();
    for (Field field : record.fields()) {
      Types.NestedField existing = struct.field(field.name());
      String fullName = parentName == null ? field.name() : parentName + "." + field.name();
      if (existing != null) {
        planExisting(plan, existing, field.schema(), true);
      } else if (struct.caseInsensitiveField(field.name()) != null) {
        if (update != null) {
          LOG.warn("not adding column {}: it differs only in case from a column the table has; its values are not"
              + " written", fullName);
        }
      } else {
        Type type = icebergType(field.schema(), new AtomicInteger(1));
        if (type != null && plan.forceOptional()) {
          type = OptionalTypes.of(type);
        }
        if (type == null) {
          if (update != null) {
            LOG.warn("not adding column {}: its Connect schema has nothing floe can write (a struct without fields)",
                fullName);
          }
          continue;
        }
        List<String> names;
        try {
          names = SchemaEvolution.lowerCaseNames(fullName, type);
        } catch (ValidationException e) { // names inside it collide: "b.c" beside a struct b with a field c (helper-77)
          if (update != null) {
            LOG.warn("not adding column {} from its Connect schema: names inside it collide ({}); the decoder's"
                + " evolution adds it from the values, without the nested fields whose names hold a dot", fullName,
                e.getMessage());
          }
          continue;
        }
        if (names.stream().anyMatch(plan.taken()::contains)) {
          if (update != null) { // "a.b" where a struct a has a field b, "Flag" next to a new "flag"
            LOG.warn("not adding column {}: its name, or a name inside it, is another field's but for case, or a"
                + " partition field's; its values are not written", fullName);
          }
          continue;
        }
        if (update != null) {
          update.addColumn(parentName, field.name(), type);
        }
        changes.add("added " + fullName + " " + type);
        plan.taken().addAll(names);
      }
    }
  }

  /** A column the table has, and the Connect schema of its values: widenings, optionality, nested fields. */
  private static void planExisting(Plan plan, Types.NestedField column, Schema values, boolean structField) {
    org.apache.iceberg.Schema schema = plan.schema();
    UpdateSchema update = plan.update();
    List<String> changes = plan.changes();
    String name = schema.findColumnName(column.fieldId());
    if (structField && column.isRequired() && values.isOptional() && !plan.keyColumns().contains(column.fieldId())) {
      if (update != null) {
        update.makeColumnOptional(name);
      }
      changes.add("made " + name + " optional");
    }
    Type type = column.type();
    Type.PrimitiveType wider = wider(type, values);
    if (wider != null) {
      if (update != null) {
        update.updateColumn(name, wider);
      }
      changes.add("widened " + name + " " + type + " -> " + wider);
    } else if (type.isStructType() && values.type() == Schema.Type.STRUCT) {
      planStruct(plan, name, type.asStructType(), values);
    } else if (type.isListType() && values.type() == Schema.Type.ARRAY) {
      planExisting(plan, type.asListType().fields().getFirst(), values.valueSchema(), false);
    } else if (type.isMapType() && values.type() == Schema.Type.MAP) {
      planExisting(plan, type.asMapType().fields().get(1), values.valueSchema(), false);
    }
    // Otherwise values that do not fit the column are bad records, as with the decoder's evolution.
  }

  /** int -> long for an INT64 field (not a Timestamp), float -> double for a FLOAT64 one; else null. */
  private static Type.PrimitiveType wider(Type column, Schema values) {
    if (column.typeId() == Type.TypeID.INTEGER && values.type() == Schema.Type.INT64
        && !Timestamp.LOGICAL_NAME.equals(values.name())) {
      return Types.LongType.get();
    }
    if (column.typeId() == Type.TypeID.FLOAT && values.type() == Schema.Type.FLOAT64) {
      return Types.DoubleType.get();
    }
    return null;
  }

  /**
   * The Iceberg type a Connect schema's values map to (the ids of nested fields are placeholders
   * the update assigns); null for what floe cannot write: a struct with no fields, or a list or map
   * of one. A map whose keys are not strings becomes a map with string keys, its keys' text ({@link
   * ConnectJson}: numbers, dates and decimals as their values are written, timestamps as ISO-8601
   * instants, bytes as base64, structs, lists and maps as their JSON), where Iceberg's connector
   * keeps their type: libfloe decodes string keys only, and a committed column floe cannot decode
   * would stop every later writer of the table. Of a struct's fields that differ only in case, the
   * first is kept.
   */
  static Type icebergType(Schema values, AtomicInteger ids) {
    return switch (values.type()) {
      case BOOLEAN -> Types.BooleanType.get();
      case BYTES -> Decimal.LOGICAL_NAME.equals(values.name())
          ? Types.DecimalType.of(38, Integer.parseInt(values.parameters().get(Decimal.SCALE_FIELD)))
          : Types.BinaryType.get();
      case INT8, INT16 -> Types.IntegerType.get();
      case INT32 -> {
        if (Date.LOGICAL_NAME.equals(values.name())) {
          yield Types.DateType.get();
        }
        yield Time.LOGICAL_NAME.equals(values.name()) ? Types.TimeType.get() : Types.IntegerType.get();
      }
      case INT64 -> Timestamp.LOGICAL_NAME.equals(values.name()) ? Types.TimestampType.withZone() : Types.LongType.get();
      case FLOAT32 -> Types.FloatType.get();
      case FLOAT64 -> Types.DoubleType.get();
      case STRING -> "uuid".equals(values.name()) ? Types.UUIDType.get() : Types.StringType.get();
      case ARRAY -> {
        Type element = icebergType(values.valueSchema(), ids);
        if (element == null) {
          yield null;
        }
        yield values.valueSchema().isOptional()
            ? Types.ListType.ofOptional(ids.getAndIncrement(), element)
            : Types.ListType.ofRequired(ids.getAndIncrement(), element);
      }
      case MAP -> {
        Type key = Types.StringType.get(); // keys are written as their text (ConnectJson): libfloe decodes string keys only
        Type value = icebergType(values.valueSchema(), ids);
        if (key == null || value == null) {
          yield null;
        }
        int keyId = ids.getAndIncrement();
        int valueId = ids.getAndIncrement();
        yield values.valueSchema().isOptional()
            ? Types.MapType.ofOptional(keyId, valueId, key, value)
            : Types.MapType.ofRequired(keyId, valueId, key, value);
      }
      case STRUCT -> {
        List<Types.NestedField> fields = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Field field : values.fields()) {
          Type type = icebergType(field.schema(), ids);
          if (type != null && names.add(field.name().toLowerCase(Locale.ROOT))) {
            fields.add(Types.NestedField.of(ids.getAndIncrement(), field.schema().isOptional(), field.name(), type));
          }
        }
        yield fields.isEmpty() ? null : Types.StructType.of(fields);
      }
    };
  }
}
