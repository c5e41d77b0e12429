package dev.floe.iceberg;

import dev.floe.arrow.UnknownField;
import dev.floe.arrow.ValueShape;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evolves a table's schema from what a described decode found ({@link
 * dev.floe.arrow.JsonDecoderConfig#describeUnknownFields()}): adds optional columns for fields the
 * schema lacks, at the top level and inside structs (also a list's element and a map's value
 * struct), and widens columns whose values needed it (int -> long, float -> double, decimal
 * precision up: the promotions Iceberg allows).
 *
 * <p>Types come from the values' JSON: an integer is a long, other numbers are doubles, strings
 * strings, booleans booleans, objects structs of their fields, arrays lists of their merged
 * element. A field whose values were only ever null (or empty arrays, or objects without such
 * fields) is left out until a typed value comes.
 *
 * <p>Concurrent writers: the update is planned against the table as it is now and committed; if
 * another writer changed the schema meanwhile, the table is read again and what is still missing
 * is planned anew, so two writers adding fields end with one schema holding both. A field another
 * writer added with a different type is left as it is: values that do not fit it are bad records.
 */
public final class SchemaEvolution {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaEvolution.class);
  private static final Pattern DECIMAL = Pattern.compile("decimal\\((\\d+),\\s*(-?\\d+)\\)");
  private static final int ATTEMPTS = 10;

  private SchemaEvolution() {}

  /** True if the report asks anything of a schema: a typed unknown field, or a widening. */
  public static boolean anythingToEvolve(List<UnknownField> report) {
    for (UnknownField field : report) {
      if (field.needsWidening() || field.shape().flatMap(SchemaEvolution::typeOf).isPresent()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Applies what {@code report} asks of {@code table}'s current schema and commits it, retrying on
   * a conflicting commit. The table is refreshed first and left refreshed.
   *
   * @return true if this call changed the schema (false: nothing to do, or others already did it)
   */
  public static boolean evolve(Table table, List<UnknownField> report) {
    for (int attempt = 1; ; attempt++) {
      table.refresh();
      UpdateSchema update = table.updateSchema();
      List<String> changes = plan(table.schema(), report, update);
      if (changes.isEmpty()) {
        return false;
      }
      try {
        update.commit();
        LOG.info("table {} evolved to schema {}: {}", table.name(), table.schema().schemaId(), String.join(", ", changes));
        return true;
      } catch (CommitFailedException e) {
        if (attempt == ATTEMPTS) {
          throw e;
        }
        LOG.info("table {}: schema changed concurrently, planning again ({})", table.name(), e.getMessage());
        sleepBeforeRetry(attempt);
      }
    }
  }

  /**
   * Puts into {@code update} what {@code report} asks of {@code schema}; returns a description of
   * each change (empty: nothing to do).
   */
  static List<String> plan(Schema schema, List<UnknownField> report, UpdateSchema update) {
    List<String> changes = new ArrayList<>();
    for (UnknownField field : report) {
      if (field.needsWidening()) {
        widen(schema, field, update, changes);
      } else if (field.shape().isPresent()) {
        Optional<String> parent = parentName(schema, field);
        if (parent != null) {
          add(schema, parent.orElse(null), leafName(field), field.shape().get(), update, changes);
        }
      }
    }
    return changes;
  }

  /** The parent struct's full name (empty at the top level); null if it is gone. */
  private static Optional<String> parentName(Schema schema, UnknownField field) {
    if (field.parentId().isEmpty()) {
      return Optional.empty();
    }
    String name = schema.findColumnName(field.parentId().getAsInt());
    return name == null ? null : Optional.of(name);
  }

  /** The field's own name: what follows its parent's path ({@code a.b}, {@code list[].b}). */
  private static String leafName(UnknownField field) {
    String path = field.path();
    if (field.parentId().isEmpty()) {
      return path;
    }
    int dot = path.lastIndexOf('.');
    return path.substring(dot + 1);
  }

  /** Adds the field, or, where a struct (or list of structs) of that name exists, its missing fields. */
  private static void add(Schema schema, String parent, String name, ValueShape shape, UpdateSchema update,
      List<String> changes) {
    String fullName = parent == null ? name : parent + "." + name;
    Types.NestedField existing = schema.findField(fullName);
    if (existing == null) {
      typeOf(shape).ifPresent(type -> {
        if (parent == null) {
          update.addColumn(name, type);
        } else {
          update.addColumn(parent, name, type);
        }
        changes.add("added " + fullName + " " + type);
      });
      return;
    }
    Type type = existing.type();
    if (shape instanceof ValueShape.ObjectShape object && type.isStructType()) {
      for (ValueShape.Field inner : object.fields()) {
        add(schema, fullName, inner.name(), inner.shape(), update, changes);
      }
    } else if (shape instanceof ValueShape.ArrayShape array && type.isListType()
        && array.element() instanceof ValueShape.ObjectShape element && type.asListType().elementType().isStructType()) {
      String elementName = fullName + "." + type.asListType().fields().get(0).name();
      for (ValueShape.Field inner : element.fields()) {
        add(schema, elementName, inner.name(), inner.shape(), update, changes);
      }
    }
    // Otherwise the column exists (another writer added it): values that do not fit it are bad records.
  }

  private static void widen(Schema schema, UnknownField field, UpdateSchema update, List<String> changes) {
    if (field.fieldId().isEmpty()) {
      return;
    }
    String name = schema.findColumnName(field.fieldId().getAsInt());
    if (name == null) {
      return; // dropped meanwhile
    }
    Type current = schema.findType(field.fieldId().getAsInt());
    String widenTo = field.widenTo().orElseThrow();
    Type.PrimitiveType wider = switch (widenTo) {
      case "long" -> current.typeId() == Type.TypeID.INTEGER ? Types.LongType.get() : null;
      case "double" -> current.typeId() == Type.TypeID.FLOAT ? Types.DoubleType.get() : null;
      default -> widerDecimal(current, widenTo);
    };
    if (wider != null) {
      update.updateColumn(name, wider);
      changes.add("widened " + name + " " + current + " -> " + wider);
    }
  }

  /** {@code decimal(P,S)} when {@code current} is a decimal of scale S and a smaller precision. */
  private static Type.PrimitiveType widerDecimal(Type current, String widenTo) {
    Matcher m = DECIMAL.matcher(widenTo);
    if (!m.matches() || !(current instanceof Types.DecimalType decimal)) {
      return null;
    }
    int precision = Integer.parseInt(m.group(1));
    int scale = Integer.parseInt(m.group(2));
    if (scale != decimal.scale() || precision <= decimal.precision() || precision > 38) {
      return null;
    }
    return Types.DecimalType.of(precision, scale);
  }

  /**
   * The Iceberg type for values of this shape; empty when they carry no type yet (only nulls,
   * empty arrays, objects without typed fields). Nested field ids are placeholders: the update
   * assigns fresh ones.
   */
  public static Optional<Type> typeOf(ValueShape shape) {
    return typeOf(shape, new AtomicInteger());
  }

  private static Optional<Type> typeOf(ValueShape shape, AtomicInteger ids) {
    return switch (shape) {
      case ValueShape.Scalar scalar -> Optional.ofNullable(switch (scalar.kind()) {
        case "integer" -> Types.LongType.get();
        case "float" -> Types.DoubleType.get();
        case "string" -> Types.StringType.get();
        case "boolean" -> Types.BooleanType.get();
        default -> null;
      });
      case ValueShape.ObjectShape object -> {
        List<Types.NestedField> fields = new ArrayList<>();
        for (ValueShape.Field field : object.fields()) {
          typeOf(field.shape(), ids).ifPresent(type ->
              fields.add(Types.NestedField.optional(ids.incrementAndGet(), field.name(), type)));
        }
        yield fields.isEmpty() ? Optional.empty() : Optional.of(Types.StructType.of(fields));
      }
      case ValueShape.ArrayShape array ->
          typeOf(array.element(), ids).map(element -> Types.ListType.ofOptional(ids.incrementAndGet(), element));
    };
  }

  private static void sleepBeforeRetry(int attempt) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(10, 50L * attempt));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while evolving a schema", e);
    }
  }
}
