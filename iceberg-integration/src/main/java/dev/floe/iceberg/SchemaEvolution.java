package dev.floe.iceberg;

import dev.floe.arrow.ShownText;
import dev.floe.arrow.UnknownField;
import dev.floe.arrow.ValueShape;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
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
    return commit(table, current -> {
      UpdateSchema update = current.updateSchema();
      Set<String> partitionNames = partitionFieldNames(current);
      List<String> changes = plan(current.schema(), report, update, true, partitionNames);
      if (!changes.isEmpty() && !namesStayUnique(update, current)) {
        update = current.updateSchema(); // keys with a "." made two fields of one name: leave them out
        changes = plan(current.schema(), report, update, false, partitionNames);
      }
      return new Planned(update, changes);
    });
  }

  /** A schema update planned against a table's current schema, and a description of each change. */
  public record Planned(UpdateSchema update, List<String> changes) {}

  /**
   * Plans with {@code planner} against {@code table}'s current schema (refreshed first, and left
   * refreshed) and commits it; after a conflicting commit, refreshes and plans again. Other ways
   * of evolving a table than a decoder's report (a Connect record's schema) share this loop.
   *
   * @return true if this call changed the schema (false: nothing to do, or others already did it)
   */
  public static boolean commit(Table table, java.util.function.Function<Table, Planned> planner) {
    for (int attempt = 1; ; attempt++) {
      table.refresh();
      Planned planned = planner.apply(table);
      if (planned.changes().isEmpty()) {
        return false;
      }
      try {
        planned.update().commit();
        LOG.info("table {} evolved to schema {}: {}", table.name(), table.schema().schemaId(),
            String.join(", ", planned.changes()));
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
    return plan(schema, report, update, true, Set.of());
  }

  /**
   * The names of {@code table}'s partition fields in every spec, lower-cased: a column of such a
   * name that is not the field's source is refused by Iceberg's commit (helper-83: a key "id_bucket"
   * beside a bucket(4, id) field stopped the sink at every restart).
   */
  public static Set<String> partitionFieldNames(Table table) {
    Set<String> names = new HashSet<>();
    table.specs().values().forEach(spec -> spec.fields().forEach(f -> names.add(f.name().toLowerCase(Locale.ROOT))));
    return names;
  }

  /**
   * As above; without {@code dottedNames}, fields whose keys hold a "." are left out (Iceberg joins
   * nested names with "."; such a key can name a field twice, e.g. {@code "a.b"} next to {@code
   * "a": {"b": ..}}).
   */
  private static List<String> plan(Schema schema, List<UnknownField> report, UpdateSchema update,
      boolean dottedNames, Set<String> partitionNames) {
    List<String> changes = new ArrayList<>();
    Set<String> taken = lowerCaseNames(schema); // and every name this plan adds
    taken.addAll(partitionNames);
    List<String> pastTheMost = new ArrayList<>();
    int fields = TypeUtil.indexById(schema.asStruct()).size(); // and those this plan adds, by the names they bring
    for (UnknownField field : report) {
      if (field.needsWidening()) {
        widen(schema, field, update, changes);
      } else if (field.shape().isPresent() && fields >= MOST_FIELDS) {
        pastTheMost.add(field.shownPath());
      } else if (field.shape().isPresent()) {
        Types.StructType parent = parentStruct(schema, field);
        if (parent != null) {
          String parentName = field.parentId().isEmpty() ? null : schema.findColumnName(field.parentId().getAsInt());
          int before = taken.size();
          add(schema, new Where(parentName, parent), field.name(), field.shape().get(), update, changes, taken,
              dottedNames);
          fields += taken.size() - before;
        }
      }
    }
    if (!pastTheMost.isEmpty()) {
      LOG.warn("not adding {} more columns ({}{}): the schema has {} fields, and evolution adds none past {}; their"
          + " values are not written", pastTheMost.size(), String.join(", ", pastTheMost.subList(0, Math.min(5,
              pastTheMost.size()))), pastTheMost.size() > 5 ? ", ..." : "", fields, MOST_FIELDS);
    }
    return changes;
  }

  /**
   * Fields (nested ones included) past which evolution adds no more: a producer whose keys are data
   * (ids, timestamps) would otherwise grow the schema, and every metadata file that repeats it,
   * without end (helper-80: one record of 50,000 keys made 132 schemas and 5.5 GB of metadata in
   * five minutes). Its values are then not written, as any field evolution leaves out.
   */
  static final int MOST_FIELDS = 10_000;

  /** A struct fields are added to: its full name for the update (null: the table's top level) and its type. */
  private record Where(String name, Types.StructType struct) {
    String childName(String child) {
      return name == null ? child : name + "." + child;
    }
  }

  /** The struct that lacks the field (the schema's top level when it has no parent); null if it is gone. */
  private static Types.StructType parentStruct(Schema schema, UnknownField field) {
    if (field.parentId().isEmpty()) {
      return schema.asStruct();
    }
    Type type = schema.findType(field.parentId().getAsInt());
    return type != null && type.isStructType() ? type.asStructType() : null;
  }

  /**
   * Adds the field, or, where a struct (or list of structs) of that name exists, its missing
   * fields. The name is the message's key, matched exactly among the struct's own fields (a key
   * may hold a "."). A name that differs only in case from a field the struct has, or from one
   * added in the same plan, is not added: engines that read names case-insensitively (Spark's
   * default) could no longer read the table.
   */
  private static void add(Schema schema, Where parent, String name, ValueShape shape, UpdateSchema update,
      List<String> changes, Set<String> taken, boolean dottedNames) {
    String fullName = parent.childName(name);
    if (name.isEmpty()) { // a column without a name: engines cannot name it in a query
      LOG.warn("not adding a column with an empty name in {}; its values are not written",
          parent.name() == null ? "the table" : parent.name());
      return;
    }
    String unfit = unfitName(name);
    if (unfit != null) {
      LOG.warn("not adding column {}: its name {}; its values are not written", ShownText.quoted(fullName), unfit);
      return;
    }
    Types.NestedField existing = parent.struct().field(name);
    if (existing == null) {
      Types.NestedField otherCase = parent.struct().caseInsensitiveField(name);
      if (otherCase != null) {
        LOG.warn("not adding column {}: it differs only in case from column {}; its values are not written",
            fullName, parent.childName(otherCase.name()));
        return;
      }
      if (!dottedNames && name.contains(".")) {
        LOG.warn("not adding column {}: its name holds a \".\" that names another field too; its values are not written",
            fullName);
        return;
      }
      typeOf(shape, new AtomicInteger(), dottedNames).ifPresent(type -> {
        List<String> names = lowerCaseNames(fullName, type);
        if (names.stream().anyMatch(taken::contains)) { // "Foo" next to "foo", "a.b" next to a new a{b}
          LOG.warn("not adding column {}: its name, or a name inside it, is another field's but for case, or a"
              + " partition field's; its values are not written", fullName);
          return;
        }
        try {
          update.addColumn(parent.name(), name, type);
          changes.add("added " + fullName + " " + type);
          taken.addAll(names);
        } catch (IllegalArgumentException e) { // its full name is another field's ("a.b" next to a.b)
          LOG.warn("not adding column {}: {}; its values are not written", fullName, e.getMessage());
        }
      });
      return;
    }
    Type type = existing.type();
    if (shape instanceof ValueShape.ObjectShape object && type.isStructType()) {
      Where inside = new Where(schema.findColumnName(existing.fieldId()), type.asStructType());
      for (ValueShape.Field inner : object.fields()) {
        add(schema, inside, inner.name(), inner.shape(), update, changes, taken, dottedNames);
      }
    } else if (shape instanceof ValueShape.ArrayShape array && type.isListType()
        && array.element() instanceof ValueShape.ObjectShape element && type.asListType().elementType().isStructType()) {
      Types.NestedField elementField = type.asListType().fields().get(0);
      Where inside = new Where(schema.findColumnName(elementField.fieldId()), elementField.type().asStructType());
      for (ValueShape.Field inner : element.fields()) {
        add(schema, inside, inner.name(), inner.shape(), update, changes, taken, dottedNames);
      }
    }
    // Otherwise the column exists (another writer added it): values that do not fit it are bad records.
  }

  private static boolean uniqueNames(Types.StructType struct) {
    try {
      TypeUtil.indexByName(struct);
      return true;
    } catch (RuntimeException e) {
      LOG.warn("leaving out keys that hold a \".\" from a new struct: {}", e.getMessage());
      return false;
    }
  }

  /** Whether the planned schema still has one field per full name (Iceberg refuses it otherwise). */
  private static boolean namesStayUnique(UpdateSchema update, Table table) {
    try {
      TypeUtil.indexByName(update.apply().asStruct());
      return true;
    } catch (RuntimeException e) {
      LOG.warn("table {}: the fields to add would give two fields one name ({}); adding them without keys that hold a \".\"",
          table.name(), e.getMessage());
      return false;
    }
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
   * Every full name in {@code schema} (nested fields, list elements, map keys and values, as
   * Iceberg names them), lower-cased: two fields whose names differ only in case break readers
   * that match names case-insensitively (Spark's default), and two of one name break the schema.
   */
  public static Set<String> lowerCaseNames(Schema schema) {
    Set<String> names = new HashSet<>();
    TypeUtil.indexByName(schema.asStruct()).keySet().forEach(n -> names.add(n.toLowerCase(Locale.ROOT)));
    return names;
  }

  /** The full names a column {@code fullName} of {@code type} brings, itself included, lower-cased. */
  public static List<String> lowerCaseNames(String fullName, Type type) {
    // the column's id is a placeholder, as the type's own: only the names are read
    Types.StructType alone = Types.StructType.of(Types.NestedField.optional(Integer.MAX_VALUE, fullName, type));
    return TypeUtil.indexByName(alone).keySet().stream().map(n -> n.toLowerCase(Locale.ROOT)).toList();
  }

  /**
   * The Iceberg type for values of this shape; empty when they carry no type yet (only nulls,
   * empty arrays, objects without typed fields). Nested field ids are placeholders: the update
   * assigns fresh ones.
   */
  public static Optional<Type> typeOf(ValueShape shape) {
    return typeOf(shape, new AtomicInteger(), true);
  }

  /** As above; without {@code dottedNames}, an object's fields whose keys hold a "." are left out. */
  private static Optional<Type> typeOf(ValueShape shape, AtomicInteger ids, boolean dottedNames) {
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
        Set<String> names = new HashSet<>(); // lower-cased: of "A" and "a", the first typed one
        for (ValueShape.Field field : object.fields()) {
          if (field.name().isEmpty() || unfitName(field.name()) != null || !dottedNames && field.name().contains(".")) {
            continue; // no column without a name, or with one no engine should take (see add)
          }
          Optional<Type> type = typeOf(field.shape(), ids, dottedNames);
          if (type.isPresent() && names.add(field.name().toLowerCase(Locale.ROOT))) {
            fields.add(Types.NestedField.optional(ids.incrementAndGet(), field.name(), type.get()));
          }
        }
        if (dottedNames && !fields.isEmpty() && !uniqueNames(Types.StructType.of(fields))) {
          yield typeOf(shape, ids, false); // "a.b" next to "a": {"b": ..}: without keys holding a "."
        }
        yield fields.isEmpty() ? Optional.empty() : Optional.of(Types.StructType.of(fields));
      }
      case ValueShape.ArrayShape array ->
          typeOf(array.element(), ids, dottedNames)
              .map(element -> Types.ListType.ofOptional(ids.incrementAndGet(), element));
    };
  }

  /** Names longer than this are not added: no engine's user names such a column, and each metadata file repeats it. */
  static final int LONGEST_NAME = 1024;

  /**
   * Why a message's key cannot name a new column, or null if it can. Control characters: a NUL ends
   * the name where the Arrow C Data Interface carries it to libfloe (helper-80: {@code "k\0x"}
   * arrived as {@code "k"}, and a column {@code "k\0"} made every later write of its table fail),
   * and the others would end up in logs and terminals as they are.
   */
  static String unfitName(String name) {
    if (name.length() > LONGEST_NAME) {
      return "is " + name.length() + " characters long (more than " + LONGEST_NAME + ")";
    }
    for (int i = 0; i < name.length(); i++) {
      if (Character.isISOControl(name.charAt(i))) {
        return "holds a control character (U+" + String.format("%04X", (int) name.charAt(i)) + ")";
      }
    }
    return null;
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
