package dev.floe.connect;

import dev.floe.iceberg.PartitionSpecs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a destination table, or, with {@code iceberg.tables.auto-create-enabled}, creates it as
 * Iceberg's connector would -- partitioned by {@code partition-by}, identifier fields from {@code
 * id-columns}, properties from {@code iceberg.tables.auto-create-props.*} -- from the Iceberg
 * schema JSON in {@code floe.tables.schema} or {@code iceberg.table.<name>.schema}, or else from
 * its first record's value ({@link RecordSchemas}: a Struct's Connect schema, a schemaless map's
 * Java types; raw JSON carries no schema). Tasks racing to create the same table all end up
 * loading the one that won.
 */
final class TableLoader {
  private static final Logger LOG = LoggerFactory.getLogger(TableLoader.class);

  /** A table that does not exist and is not to be created, or a name that names no table. */
  static final class MissingTableException extends ConnectException {
    MissingTableException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * A table to be created from a record whose value gives no schema (a string, a struct with no
   * field floe can write): a bad record; the next one may create it.
   */
  static final class NoSchemaInRecordException extends ConnectException {
    NoSchemaInRecordException(String message) {
      super(message);
    }
  }

  private final Catalog catalog;
  private final ConnectorSettings settings;
  /** The values are raw JSON (the fast path's converters): no record gives a schema. */
  private final boolean rawValues;

  TableLoader(Catalog catalog, ConnectorSettings settings, boolean rawValues) {
    this.catalog = catalog;
    this.settings = settings;
    this.rawValues = rawValues;
  }

  /**
   * The table, created first when it is missing and auto-create is on, from the configured schema
   * or else from {@code sample}'s value.
   *
   * @param sample the record routed to the table, or null (at start)
   * @throws ConnectException for a table floe cannot write as the config asks (see {@link #requireWritable})
   * @throws NoSchemaInRecordException for a table to be created from a sample that gives no schema
   */
  Table load(String name, SinkRecord sample) {
    Table table = loadOrCreate(name, sample);
    requireWritable(name, table);
    return table;
  }

  /**
   * Whether a table is to be created from its first record: auto-create is on, the config gives no
   * schema for it, the values may carry one, and it does not exist yet.
   */
  boolean createdFromFirstRecord(String name) {
    String json = settings.schemaJson(name);
    return settings.autoCreate() && (json == null || json.isBlank()) && !rawValues
        && !catalog.tableExists(TableIdentifier.parse(name));
  }

  /**
   * A setting floe would otherwise not honour, refused by name rather than ignored: in upsert mode,
   * id columns other than the table's identifier fields (floe upserts by the table's identifier
   * fields, Iceberg's connector by the configured ones). A data file format other than Parquet is
   * refused by the writer factory ({@code TableSink}), with the connector's write-props.
   */
  private void requireWritable(String name, Table table) {
    List<String> idColumns = settings.idColumns(name);
    if (settings.upsert() && !idColumns.isEmpty()) {
      Set<String> configured = new TreeSet<>(idColumns);
      Set<String> identifiers = new TreeSet<>(table.schema().identifierFieldNames());
      if (!configured.equals(identifiers)) {
        throw new ConnectException("table " + name + " has identifier fields " + identifiers + " but the config's id "
            + "columns are " + configured + ": floe upserts by the table's identifier fields; make them the same "
            + "(ALTER TABLE ... SET IDENTIFIER FIELDS, or the id-columns keys)");
      }
    }
  }

  private Table loadOrCreate(String name, SinkRecord sample) {
    TableIdentifier id;
    try {
      id = TableIdentifier.parse(name);
    } catch (IllegalArgumentException e) {
      // a route value such as "" or "db.": it names no table
      throw new MissingTableException("'" + name + "' is not a table name (" + e.getMessage() + ")", e);
    }
    try {
      return catalog.loadTable(id);
    } catch (NoSuchTableException e) {
      if (!settings.autoCreate()) {
        throw new MissingTableException("table " + name + " does not exist (and "
            + ConnectorSettings.AUTO_CREATE + " is false)", e);
      }
    }
    String configured = settings.schemaJson(name);
    boolean fromRecord = configured == null || configured.isBlank();
    Schema schema = fromRecord ? schemaOfFirstRecord(name, sample) : SchemaParser.fromJson(configured);
    String partitionBy = settings.partitionBy(name);
    boolean partitioned = partitionBy != null && !partitionBy.isBlank();
    if (fromRecord && sample.value() instanceof Map<?, ?>) { // a Struct's schema names every field, null or not
      requireKeyAndPartitionColumns(name, schema, partitioned ? partitionBy : null);
    }
    if (settings.upsert()) { // the upsert key; without upserts Iceberg's connector creates no identifier fields
      try {
        schema = withIdentifierFields(schema, settings.idColumns(name), name);
      } catch (IllegalArgumentException e) {
        // Iceberg refuses the type the record gave the key (a double), or the record has no key
        // column (a Struct of another schema, helper-77): a later record may create the table
        if (!fromRecord) {
          throw new ConnectException(e.getMessage(), e);
        }
        throw new NoSchemaInRecordException("table " + name + " does not exist and the record cannot give it its "
            + "schema: " + e.getMessage());
      }
    }
    if (settings.forceOptional()) {
      schema = allOptional(schema);
    }
    PartitionSpec spec = partitioned ? spec(name, partitionBy, schema, fromRecord) : PartitionSpec.unpartitioned();
    Map<String, String> properties = new HashMap<>();
    properties.put(TableProperties.FORMAT_VERSION, "2");
    properties.putAll(settings.autoCreateProperties());
    if (catalog instanceof SupportsNamespaces namespaces && !id.namespace().isEmpty()
        && !namespaces.namespaceExists(id.namespace())) {
      try {
        namespaces.createNamespace(id.namespace());
      } catch (AlreadyExistsException raced) {
        // another task made it
      }
    }
    try {
      return catalog.createTable(id, schema, spec, properties);
    } catch (AlreadyExistsException raced) {
      return catalog.loadTable(id);
    }
  }

  /** The schema a new table takes from its first record, when the config gives none. */
  private Schema schemaOfFirstRecord(String name, SinkRecord sample) {
    String configure = ConnectorSettings.SCHEMA + " or iceberg.table." + name + ".schema";
    if (rawValues || sample == null || rawJson(sample)) {
      // A setting to fix, not a bad record: every record of the table would be one.
      throw new ConnectException("table " + name + " does not exist and there is no schema to create it from: set "
          + configure + " to an Iceberg schema JSON (raw JSON values carry none)");
    }
    Schema inferred;
    try {
      inferred = RecordSchemas.of(sample);
    } catch (ValidationException e) { // names that collide: "a.b" beside a struct a with a field b (helper-77)
      throw new NoSchemaInRecordException("table " + name + " does not exist and the record cannot give it its schema: "
          + e.getMessage() + " (a field name with a dot is another field's full name)");
    }
    if (inferred == null) {
      throw new NoSchemaInRecordException("table " + name + " does not exist and the record's value gives no schema "
          + "to create it from (a Struct or a schemaless map with a field floe can write does: set " + configure
          + " otherwise)");
    }
    LOG.info("creating table {} with the schema of its first record, at topic {}, partition {}, offset {}: {}", name,
        sample.originalTopic(), sample.originalKafkaPartition(), sample.originalKafkaOffset(), inferred.asStruct());
    return inferred;
  }

  /**
   * Whether the record is raw JSON as ByteArrayConverter or StringConverter give it: bytes, or a
   * string with their string schema. A string without a schema is a JSON string value that
   * JsonConverter read without schemas: a bad record, not a converter to change (helper-55).
   */
  private static boolean rawJson(SinkRecord record) {
    Object value = record.value();
    org.apache.kafka.connect.data.Schema schema = record.valueSchema();
    return value instanceof byte[] || value instanceof java.nio.ByteBuffer
        || (value instanceof String && schema != null && schema.type() == org.apache.kafka.connect.data.Schema.Type.STRING);
  }

  /**
   * A schemaless record that has no value for a column the table's key or partitioning needs (a
   * null gives no column) cannot create the table: a bad record; a later one may.
   */
  private void requireKeyAndPartitionColumns(String name, Schema inferred, String partitionBy) {
    List<String> needed = new ArrayList<>();
    if (settings.upsert()) {
      needed.addAll(settings.idColumns(name));
    }
    if (partitionBy != null) {
      needed.addAll(PartitionSpecs.sourceColumns(partitionBy));
    }
    List<String> missing = needed.stream().filter(column -> inferred.findField(column) == null).toList();
    if (!missing.isEmpty()) {
      throw new NoSchemaInRecordException("table " + name + " does not exist and the record has no value for "
          + missing + ", which its identifier fields or partitioning need: it cannot give the table its schema");
    }
  }

  /**
   * The table's partition spec. On a schema taken from a record, one the columns' types do not
   * allow (day(ts) where schemaless JSON gave ts as a string) leaves the table unpartitioned, with a
   * warning, as Iceberg's connector does; on a configured schema it fails the task (fix the config).
   */
  private static PartitionSpec spec(String name, String partitionBy, Schema schema, boolean fromRecord) {
    try {
      return PartitionSpecs.parse(partitionBy, schema);
    } catch (IllegalArgumentException | ValidationException e) { // the latter from the spec's build
      if (!fromRecord) {
        throw new ConnectException("table " + name + " cannot be created with partitioning '" + partitionBy + "' ("
            + ConnectorSettings.DEFAULT_PARTITION_BY + " or iceberg.table." + name + ".partition-by): "
            + e.getMessage(), e);
      }
      LOG.warn("table {}: partitioning '{}' ({} or iceberg.table.{}.partition-by) does not fit the schema of its first "
          + "record ({}); the table is created unpartitioned, as by Iceberg's connector (give its schema in {} to "
          + "partition it)", name, partitionBy, ConnectorSettings.DEFAULT_PARTITION_BY, name, e.getMessage(),
          ConnectorSettings.SCHEMA);
      return PartitionSpec.unpartitioned();
    }
  }

  /** The schema with {@code idColumns} (top-level names) as required identifier fields. */
  private static Schema withIdentifierFields(Schema schema, List<String> idColumns, String table) {
    if (idColumns.isEmpty()) {
      return schema;
    }
    Set<Integer> ids = new HashSet<>();
    for (String column : idColumns) {
      Types.NestedField field = schema.findField(column);
      if (field == null) {
        throw new IllegalArgumentException("id column '" + column + "' of table " + table + " is not in its schema");
      }
      ids.add(field.fieldId());
    }
    List<Types.NestedField> columns = new ArrayList<>();
    for (Types.NestedField f : schema.columns()) {
      columns.add(ids.contains(f.fieldId()) ? f.asRequired() : f);
    }
    return new Schema(columns, ids);
  }

  /** Every column optional at every level ({@link OptionalTypes}), but the identifier fields. */
  private static Schema allOptional(Schema schema) {
    List<Types.NestedField> columns = new ArrayList<>();
    for (Types.NestedField f : schema.columns()) {
      columns.add(schema.identifierFieldIds().contains(f.fieldId())
          ? f
          : Types.NestedField.optional(f.fieldId(), f.name(), OptionalTypes.of(f.type()), f.doc()));
    }
    return new Schema(columns, schema.identifierFieldIds());
  }
}
