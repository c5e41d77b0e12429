package dev.floe.connect;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * The connector's configuration: Apache Iceberg's Kafka Connect sink keys (1.11) with the same
 * names and meanings, plus a few of floe's own ({@code floe.*}). A config written for Iceberg's
 * connector runs with only {@code connector.class} changed; an {@code iceberg.*} or {@code floe.*}
 * key floe does not support -- or a supported key set to a value floe does not support -- is
 * refused by name ({@link #problems}), never ignored.
 *
 * <p>Keys that configure Iceberg's control topic ({@code iceberg.control.topic}, {@code
 * iceberg.control.group-id-prefix}, {@code iceberg.control.commit.timeout-ms}, {@code
 * iceberg.control.commit.threads}, {@code iceberg.kafka.*}) are accepted and have nothing to do:
 * floe's tasks commit their own files, without a control topic.
 *
 * <p>{@code iceberg.tables.upsert-mode-enabled} is not a key of Iceberg's 1.11 connector (which
 * appends only, and ignores it) but of its earlier Tabular form: here it writes upserts by the
 * tables' identifier fields, and tombstones delete.
 */
final class ConnectorSettings extends AbstractConfig {
  static final String TABLES = "iceberg.tables";
  static final String DYNAMIC = "iceberg.tables.dynamic-enabled";
  static final String ROUTE_FIELD = "iceberg.tables.route-field";
  static final String DEFAULT_COMMIT_BRANCH = "iceberg.tables.default-commit-branch";
  static final String DEFAULT_ID_COLUMNS = "iceberg.tables.default-id-columns";
  static final String DEFAULT_PARTITION_BY = "iceberg.tables.default-partition-by";
  static final String AUTO_CREATE = "iceberg.tables.auto-create-enabled";
  static final String EVOLVE_SCHEMA = "iceberg.tables.evolve-schema-enabled";
  static final String FORCE_OPTIONAL = "iceberg.tables.schema-force-optional";
  static final String CASE_INSENSITIVE = "iceberg.tables.schema-case-insensitive";
  static final String UPSERT = "iceberg.tables.upsert-mode-enabled";
  static final String CATALOG_NAME = "iceberg.catalog";
  static final String COMMIT_INTERVAL_MS = "iceberg.control.commit.interval-ms";
  static final String CONNECT_GROUP_ID = "iceberg.connect.group-id";
  static final String HADOOP_CONF_DIR = "iceberg.hadoop-conf-dir";
  static final String CONTROL_TOPIC = "iceberg.control.topic";

  static final String CATALOG_PREFIX = "iceberg.catalog.";
  static final String HADOOP_PREFIX = "iceberg.hadoop.";
  static final String KAFKA_PREFIX = "iceberg.kafka.";
  static final String TABLE_PREFIX = "iceberg.table.";
  static final String AUTO_CREATE_PROPS_PREFIX = "iceberg.tables.auto-create-props.";
  static final String WRITE_PROPS_PREFIX = "iceberg.tables.write-props.";

  static final String SCHEMA = "floe.tables.schema";
  static final String COMMIT_RECORDS = "floe.commit.records";
  static final String COMMIT_BYTES = "floe.commit.bytes";
  static final String EXPIRE_SNAPSHOTS_INTERVAL = "floe.expire-snapshots.interval-ms";
  static final String BATCH_RECORDS = "floe.batch.records";
  static final String BATCH_BYTES = "floe.batch.bytes";
  static final String BUFFER_BYTES = "floe.buffer.bytes";
  static final String TABLE_IDLE_MS = "floe.table.idle.ms";
  static final String IDLE_COMMIT_CYCLES = "floe.idle.commit.cycles";
  static final String STORAGE_RETRY_TIMEOUT_MS = "floe.storage.retry.timeout.ms";
  /** Set by the connector in each task's config: the task's index. */
  static final String TASK_INDEX = "floe.internal.task-index";

  /** Per-table keys, {@code iceberg.table.<name>.<key>} ({@code schema}: floe's). */
  private static final Set<String> TABLE_KEYS = Set.of("route-regex", "id-columns", "partition-by", "commit-branch", "schema");

  /** Iceberg's keys for its control topic: accepted, and without effect here. */
  private static final Set<String> CONTROL_TOPIC_KEYS = Set.of(
      CONTROL_TOPIC, "iceberg.control.group-id-prefix", "iceberg.control.commit.timeout-ms",
      "iceberg.control.commit.threads", "iceberg.coordinator.transactional.suffix",
      "iceberg.coordinator.transactional.prefix", "iceberg.coordinator-executor-keep-alive-timeout-ms");

  static final ConfigDef CONFIG_DEF = new ConfigDef()
      .define(TABLES, Type.LIST, null, Importance.HIGH, "Comma-separated destination tables")
      .define(DYNAMIC, Type.BOOLEAN, false, Importance.MEDIUM,
          "Route each record to the table named by its route field's value")
      .define(ROUTE_FIELD, Type.STRING, null, Importance.MEDIUM,
          "Top-level string field of the record value that routes it to tables")
      .define(DEFAULT_COMMIT_BRANCH, Type.STRING, null, Importance.LOW,
          "Branch to commit to (floe commits to main only)")
      .define(DEFAULT_ID_COLUMNS, Type.STRING, null, Importance.MEDIUM,
          "Identifier columns of auto-created tables (the upsert key), comma-separated")
      .define(DEFAULT_PARTITION_BY, Type.STRING, null, Importance.MEDIUM,
          "Partition spec of auto-created tables, e.g. bucket(id, 4),day(ts)")
      .define(AUTO_CREATE, Type.BOOLEAN, false, Importance.MEDIUM,
          "Create missing tables from floe.tables.schema (or iceberg.table.<name>.schema), or else from"
              + " their first record's schema (Struct values, schemaless maps; raw JSON carries none)")
      .define(EVOLVE_SCHEMA, Type.BOOLEAN, false, Importance.MEDIUM,
          "Add optional columns for fields the records carry and the tables lack, and widen int, float"
              + " and decimal columns whose values need it, before writing the batch that needed it"
              + " (in upsert mode too)")
      .define(FORCE_OPTIONAL, Type.BOOLEAN, false, Importance.LOW, "Create tables with every column optional")
      .define(CASE_INSENSITIVE, Type.BOOLEAN, false, Importance.LOW, "Not supported: must be false")
      .define(UPSERT, Type.BOOLEAN, false, Importance.MEDIUM,
          "Replace rows by the tables' identifier fields; a null value (tombstone) deletes its key's row")
      .define(CATALOG_NAME, Type.STRING, "iceberg", Importance.MEDIUM, "Iceberg catalog name")
      .define(CONTROL_TOPIC, Type.STRING, "control-iceberg", Importance.LOW,
          "Iceberg's control topic: accepted for compatibility, without effect (floe has no control topic)")
      .define(COMMIT_INTERVAL_MS, Type.INT, 300_000, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
          "Commit each task's files at least this often, in milliseconds")
      .define(CONNECT_GROUP_ID, Type.STRING, null, Importance.LOW,
          "The Connect consumer group (default connect-<name>); the tables store offsets under it")
      .define(HADOOP_CONF_DIR, Type.STRING, null, Importance.LOW, "Folder of Hadoop config files to load")
      .define(SCHEMA, Type.STRING, null, Importance.MEDIUM,
          "Iceberg schema JSON for auto-created tables (needed for raw JSON values, which carry none)")
      .define(COMMIT_RECORDS, Type.LONG, Long.MAX_VALUE, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
          "Also commit once a task has this many uncommitted records")
      .define(COMMIT_BYTES, Type.LONG, Long.MAX_VALUE, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
          "Also commit once a task has this many uncommitted value bytes")
      .define(EXPIRE_SNAPSHOTS_INTERVAL, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
          "Expire each table's old snapshots this often, in milliseconds, after a task's commit (0: never):"
              + " by the table's history.expire.max-snapshot-age-ms and history.expire.min-snapshots-to-keep,"
              + " deleting the files only they referenced. Not for tables with gc.enabled=false")
      .define(BATCH_RECORDS, Type.INT, 8192, ConfigDef.Range.atLeast(1), Importance.LOW,
          "Records per native decode batch")
      .define(BATCH_BYTES, Type.LONG, 4L << 20, ConfigDef.Range.atLeast(1), Importance.LOW,
          "Value bytes per native decode batch")
      .define(BUFFER_BYTES, Type.LONG, 256L << 20, ConfigDef.Range.atLeast(1 << 20), Importance.LOW,
          "Rows a table's open files may buffer natively before writing row groups early")
      .define(TABLE_IDLE_MS, Type.LONG, 60_000L, ConfigDef.Range.atLeast(-1), Importance.LOW,
          "A table that has taken no record in a whole commit cycle, nor for this many milliseconds, gives"
              + " back its two threads and its message batches until its next record; -1: never")
      .define(IDLE_COMMIT_CYCLES, Type.INT, 10, ConfigDef.Range.atLeast(0), Importance.LOW,
          "A table that takes no record for this many commit cycles in a row while its partitions move on"
              + " (a rarely routed table) is committed without files, storing the offsets reached; so is it at"
              + " the last cycle before partitions are given away. A rebalance then resumes from there instead"
              + " of re-reading everything since the table's last data; 0: never")
      .define(STORAGE_RETRY_TIMEOUT_MS, Type.LONG, 300_000L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
          "How long a task rides out an outage of its tables' storage or catalog (an I/O failure, a 5xx,"
              + " 408 or 429 answer, a commit whose outcome stayed unknown): the cycle is dropped, the task's"
              + " partitions are paused, and after a wait (1 s, doubling up to 30 s) they are read again from"
              + " what the tables hold. Past this many milliseconds of failures with no commit between, the"
              + " task fails; 0: it fails at the first");

  private final Map<String, String> originals;

  ConnectorSettings(Map<String, String> props) {
    super(CONFIG_DEF, props, false);
    this.originals = Map.copyOf(props);
    List<String> problems = problems(props);
    if (!problems.isEmpty()) {
      throw new ConfigException(String.join("; ", problems));
    }
  }

  /**
   * What is wrong with {@code props}, one message per key, each naming it; empty if nothing is.
   * Connect's own keys (name, topics, converters, errors.*, transforms, ...) are not looked at.
   */
  static List<String> problems(Map<String, String> props) {
    List<String> problems = new ArrayList<>();
    Set<String> known = CONFIG_DEF.names();
    for (String key : new TreeSet<>(props.keySet())) {
      boolean ours = key.startsWith("iceberg.") || key.startsWith("floe.");
      if (!ours || known.contains(key) || key.equals(TASK_INDEX) || CONTROL_TOPIC_KEYS.contains(key)
          || key.startsWith(CATALOG_PREFIX) || key.startsWith(HADOOP_PREFIX) || key.startsWith(KAFKA_PREFIX)
          || key.startsWith(AUTO_CREATE_PROPS_PREFIX) || key.startsWith(WRITE_PROPS_PREFIX)) {
        continue;
      }
      if (key.startsWith(TABLE_PREFIX)) {
        String rest = key.substring(TABLE_PREFIX.length());
        int dot = rest.lastIndexOf('.');
        if (dot > 0 && TABLE_KEYS.contains(rest.substring(dot + 1))) {
          continue;
        }
      }
      problems.add("'" + key + "' is not a key floe's connector supports");
    }
    if (isTrue(props.get(CASE_INSENSITIVE))) {
      problems.add("'" + CASE_INSENSITIVE + "' = true is not supported: fields match columns by exact name");
    }
    props.forEach((key, value) -> {
      boolean branch = key.equals(DEFAULT_COMMIT_BRANCH)
          || (key.startsWith(TABLE_PREFIX) && key.endsWith(".commit-branch"));
      if (branch && value != null && !value.isBlank() && !value.equals("main")) {
        problems.add("'" + key + "' = " + value + " is not supported: floe commits to the main branch only");
      }
      if (key.startsWith(TABLE_PREFIX) && key.endsWith(".route-regex")) {
        try {
          Pattern.compile(value);
        } catch (PatternSyntaxException e) {
          problems.add("'" + key + "' is not a regular expression: " + e.getDescription());
        }
      }
    });
    String tables = props.get(TABLES);
    boolean dynamic = isTrue(props.get(DYNAMIC));
    boolean hasTables = tables != null && !tables.isBlank();
    if (hasTables && dynamic) {
      problems.add("set either '" + TABLES + "' or '" + DYNAMIC + "' = true, not both");
    } else if (!hasTables && !dynamic) {
      problems.add("'" + TABLES + "' is required (or '" + DYNAMIC + "' = true with a route field)");
    }
    String routeField = props.get(ROUTE_FIELD);
    if (dynamic && (routeField == null || routeField.isBlank())) {
      problems.add("'" + ROUTE_FIELD + "' is required when '" + DYNAMIC + "' = true");
    }
    String schema = props.get(SCHEMA);
    // Struct values and schemaless maps give a new table its schema; raw JSON does not. (Static
    // tables are not checked: they may exist already, and a task fails at start naming a missing one.)
    String converter = props.get("value.converter");
    if (dynamic && isTrue(props.get(AUTO_CREATE)) && (schema == null || schema.isBlank())
        && RecordValues.fastPath(converter)) {
      problems.add("'" + AUTO_CREATE + "' = true with '" + DYNAMIC + "' = true and raw JSON values (value.converter = "
          + converter + ") needs '" + SCHEMA + "': raw JSON carries no schema to create the tables from");
    }
    if (routeField != null && routeField.contains(".")) {
      problems.add("'" + ROUTE_FIELD + "' = " + routeField + ": floe routes on a top-level field only");
    }
    if (props.keySet().stream().noneMatch(k -> k.startsWith(CATALOG_PREFIX))) {
      problems.add("no 'iceberg.catalog.*' properties: the catalog is not configured");
    }
    return problems;
  }

  private static boolean isTrue(String value) {
    return value != null && value.strip().equalsIgnoreCase("true");
  }

  String connectorName() {
    return originals.get("name");
  }

  /** The consumer group whose offsets the tables hold: Connect's group for this connector. */
  String groupId() {
    String group = getString(CONNECT_GROUP_ID);
    if (group != null) {
      return group;
    }
    String override = originals.get("consumer.override.group.id");
    return override != null ? override : "connect-" + connectorName();
  }

  List<String> tables() {
    List<String> tables = getList(TABLES);
    return tables == null ? List.of() : tables.stream().map(String::strip).filter(s -> !s.isEmpty()).toList();
  }

  boolean dynamic() {
    return getBoolean(DYNAMIC);
  }

  String routeField() {
    return getString(ROUTE_FIELD);
  }

  boolean upsert() {
    return getBoolean(UPSERT);
  }

  boolean evolveSchema() {
    return getBoolean(EVOLVE_SCHEMA);
  }

  boolean autoCreate() {
    return getBoolean(AUTO_CREATE);
  }

  boolean forceOptional() {
    return getBoolean(FORCE_OPTIONAL);
  }

  String catalogName() {
    return getString(CATALOG_NAME);
  }

  Map<String, String> catalogProperties() {
    return withPrefix(CATALOG_PREFIX);
  }

  Map<String, String> hadoopProperties() {
    return withPrefix(HADOOP_PREFIX);
  }

  String hadoopConfDir() {
    return getString(HADOOP_CONF_DIR);
  }

  Map<String, String> autoCreateProperties() {
    return withPrefix(AUTO_CREATE_PROPS_PREFIX);
  }

  Map<String, String> writeProperties() {
    return withPrefix(WRITE_PROPS_PREFIX);
  }

  /** A table's own key ({@code iceberg.table.<name>.<key>}), or {@code fallback}. */
  String tableSetting(String table, String key, String fallback) {
    String value = originals.get(TABLE_PREFIX + table + "." + key);
    return value != null ? value : fallback;
  }

  Pattern routeRegex(String table) {
    String regex = tableSetting(table, "route-regex", null);
    return regex == null ? null : Pattern.compile(regex);
  }

  /** The table's id columns (comma-separated top-level names in the config), stripped; empty if none. */
  List<String> idColumns(String table) {
    String configured = tableSetting(table, "id-columns", getString(DEFAULT_ID_COLUMNS));
    if (configured == null) {
      return List.of();
    }
    return Arrays.stream(configured.split(",")).map(String::strip).filter(column -> !column.isEmpty()).toList();
  }

  String partitionBy(String table) {
    return tableSetting(table, "partition-by", getString(DEFAULT_PARTITION_BY));
  }

  String schemaJson(String table) {
    return tableSetting(table, "schema", getString(SCHEMA));
  }

  long commitIntervalMillis() {
    return getInt(COMMIT_INTERVAL_MS);
  }

  long commitRecords() {
    return getLong(COMMIT_RECORDS);
  }

  java.time.Duration expireSnapshotsInterval() {
    return java.time.Duration.ofMillis(getLong(EXPIRE_SNAPSHOTS_INTERVAL));
  }

  long commitBytes() {
    return getLong(COMMIT_BYTES);
  }

  int batchRecords() {
    return getInt(BATCH_RECORDS);
  }

  long batchBytes() {
    return getLong(BATCH_BYTES);
  }

  long bufferBytes() {
    return getLong(BUFFER_BYTES);
  }

  /** How long a table may go without records before it gives back its threads; empty: never. */
  OptionalLong tableIdleMillis() {
    long millis = getLong(TABLE_IDLE_MS);
    return millis < 0 ? OptionalLong.empty() : OptionalLong.of(millis);
  }

  /** {@code floe.storage.retry.timeout.ms}: zero, fail at the first outage. */
  java.time.Duration storageRetryTimeout() {
    return java.time.Duration.ofMillis(getLong(STORAGE_RETRY_TIMEOUT_MS));
  }

  /** {@code floe.idle.commit.cycles}: 0, never. */
  int idleCommitCycles() {
    return getInt(IDLE_COMMIT_CYCLES);
  }

  int taskIndex() {
    String index = originals.get(TASK_INDEX);
    return index == null ? 0 : Integer.parseInt(index);
  }

  /** Connect's {@code errors.tolerance}: {@code all} tolerates bad records, {@code none} (default) stops. */
  boolean toleratesErrors() {
    return "all".equalsIgnoreCase(originals.getOrDefault("errors.tolerance", "none").strip());
  }

  private Map<String, String> withPrefix(String prefix) {
    Map<String, String> out = new LinkedHashMap<>();
    originals.forEach((k, v) -> {
      if (k.startsWith(prefix)) {
        out.put(k.substring(prefix.length()), v);
      }
    });
    return out;
  }
}
