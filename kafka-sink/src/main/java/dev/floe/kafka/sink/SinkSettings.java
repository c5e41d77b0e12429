package dev.floe.kafka.sink;

import dev.floe.iceberg.ByteSizes;
import dev.floe.iceberg.PartitionSpecs;
import dev.floe.iceberg.SchemaFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * Every setting of the sink, defined once -- name, type, default, documentation -- as a Kafka
 * {@link ConfigDef}. {@link SinkConfig.Builder} takes its defaults from it and reads a map of
 * settings through it ({@link SinkConfig.Builder#settings}); the CLI derives {@code floe sink}'s
 * flags from it ({@code --commit-interval} for {@code commit.interval}); a Kafka Connect connector
 * returns it from {@code config()}. What is not a setting: the catalog, the bootstrap servers and
 * the consumer group (they come from the caller: flags, the Connect worker) and Kafka client
 * properties (passed through).
 */
public final class SinkSettings {
  public static final String ROUTE = "route";
  public static final String TOPIC = "topic";
  public static final String ROUTE_FIELD = "route.field";
  public static final String ROUTE_VALUE = "route.value";
  public static final String SCHEMA = "schema";
  public static final String PARTITION_BY = "partition.by";
  public static final String COMMIT_INTERVAL = "commit.interval";
  public static final String COMMIT_RECORDS = "commit.records";
  public static final String COMMIT_BYTES = "commit.bytes";
  public static final String BATCH_RECORDS = "batch.records";
  public static final String BATCH_BYTES = "batch.bytes";
  public static final String MAX_IN_FLIGHT_BYTES = "max.in.flight.bytes";
  public static final String ON_ERROR = "on.error";
  public static final String DLQ_TOPIC = "dlq.topic";
  public static final String UPSERT = "upsert";
  public static final String EVOLVE_SCHEMA = "evolve.schema";
  public static final String STOP_AT_END = "stop.at.end";
  public static final String ENCODE_THREADS = "encode.threads";
  public static final String ENCODE_AHEAD = "encode.ahead";
  public static final String DECODE_AHEAD = "decode.ahead";
  public static final String OVERLAP_COMMITS = "overlap.commits";
  public static final String EXPIRE_SNAPSHOTS_EVERY = "expire.snapshots.every";
  public static final String KAFKA_TIMEOUT = "kafka.timeout";
  public static final String IDLE_COMMIT_CYCLES = "idle.commit.cycles";
  public static final String STORAGE_RETRY_TIMEOUT = "storage.retry.timeout";

  // Before the definition: its defaults are checked as it is built.
  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");

  private static final ConfigDef DEFINITION = new ConfigDef()
      .define(ROUTE, Type.LIST, "", Importance.HIGH,
          "Records of TOPIC go to NAMESPACE.TABLE: entries TOPIC=NAMESPACE.TABLE.")
      .define(TOPIC, Type.LIST, "", Importance.HIGH,
          "Topics to read when routing by field.")
      .define(ROUTE_FIELD, Type.STRING, null, Importance.HIGH,
          "A top-level JSON string field whose value picks the table, by the route.value rules.")
      .define(ROUTE_VALUE, Type.LIST, "", Importance.HIGH,
          "With route.field: records whose value matches REGEX go to NAMESPACE.TABLE: entries"
              + " REGEX=NAMESPACE.TABLE, the first match wins (a regex cannot contain a comma).")
      .define(SCHEMA, Type.STRING, null, Importance.MEDIUM,
          "The Iceberg schema of tables created when missing: its JSON, or the file that holds it;"
              + " without it, tables must exist.")
      .define(PARTITION_BY, Type.STRING, null, Importance.MEDIUM,
          "Partitioning of created tables, e.g. 'bucket(4,id),day(ts)'.")
      .define(COMMIT_INTERVAL, Type.STRING, "10s", durationValidator(), Importance.HIGH,
          "Commit at least this often: 10s, 500ms, 2m, or seconds.")
      .define(COMMIT_RECORDS, Type.LONG, 1_000_000L, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
          "... or after this many records.")
      .define(COMMIT_BYTES, Type.STRING, "256MiB", sizeValidator(Long.MAX_VALUE), Importance.MEDIUM,
          "... or after this much payload, whichever comes first: bounds what a cycle holds until"
              + " its commit.")
      .define(BATCH_RECORDS, Type.INT, 8192, ConfigDef.Range.atLeast(1), Importance.LOW,
          "Messages per native decode batch.")
      .define(BATCH_BYTES, Type.STRING, "4MiB", sizeValidator(Long.MAX_VALUE), Importance.LOW,
          "Payload per native decode batch.")
      .define(MAX_IN_FLIGHT_BYTES, Type.STRING, "256MiB", sizeValidator(Integer.MAX_VALUE), Importance.MEDIUM,
          "Memory for record data (at most 2GiB): a quarter for decode batches, the rest for rows"
              + " open files buffer; the consumer waits when the batches' share is used up.")
      .define(ON_ERROR, Type.STRING, "fail", ConfigDef.ValidString.in("fail", "skip", "dlq"), Importance.HIGH,
          "Bad records: fail (stop, naming topic, partition, offset and reason), skip (count) or dlq"
              + " (send to dlq.topic; the policy when only dlq.topic is given).")
      .define(DLQ_TOPIC, Type.STRING, null, Importance.HIGH,
          "The dead-letter topic for on.error=dlq; given alone, it sets on.error=dlq.")
      .define(UPSERT, Type.BOOLEAN, false, Importance.MEDIUM,
          "Replace rows by the tables' identifier fields (format v2 tables) instead of appending.")
      .define(EVOLVE_SCHEMA, Type.BOOLEAN, false, Importance.MEDIUM,
          "Evolve the tables from the records: add optional columns for fields they carry and the"
              + " tables lack (integer -> long, other numbers -> double, objects -> structs, arrays"
              + " -> lists), widen int, float and decimal columns whose values need it, and write"
              + " the batch that needed it with the new schema (in upsert mode too).")
      .define(STOP_AT_END, Type.BOOLEAN, false, Importance.LOW,
          "Stop once everything up to the end of the topics (as of the assignment) is committed. A"
              + " group member given no partitions stops after taking over those of members that stopped.")
      .define(KAFKA_TIMEOUT, Type.STRING, "60s", durationValidator(), Importance.LOW,
          "How long the start waits for the broker to answer: the sink then fails, naming it, as it"
              + " does for a missing topic with stop.at.end (a missing dead-letter topic is created).")
      .define(ENCODE_THREADS, Type.INT, 1, ConfigDef.Range.atLeast(1), Importance.LOW,
          "Threads encoding each file's columns, besides each table's writer thread.")
      .define(ENCODE_AHEAD, Type.BOOLEAN, true, Importance.LOW,
          "With one encode thread: encode each file's column runs on threads shared by every writer"
              + " (one per core) while the table's writer thread goes on; files are the same.")
      .define(DECODE_AHEAD, Type.BOOLEAN, true, Importance.LOW,
          "Decode each table's batches on a thread of their own, a batch ahead of its writer thread.")
      .define(OVERLAP_COMMITS, Type.BOOLEAN, true, Importance.LOW,
          "Commit each cycle on a thread of its own while the next one fills.")
      .define(EXPIRE_SNAPSHOTS_EVERY, Type.STRING, "0", zeroOrDurationValidator(), Importance.MEDIUM,
          "Expire each table's old snapshots this often, after a commit (0: never, the default):"
              + " by the table's history.expire.max-snapshot-age-ms (default 5 days) and"
              + " history.expire.min-snapshots-to-keep (default 1), deleting the files only they"
              + " referenced. Each commit rewrites every snapshot a table keeps, so commits slow"
              + " down as they pile up. Not for tables with gc.enabled=false.")
      .define(IDLE_COMMIT_CYCLES, Type.INT, 10, ConfigDef.Range.atLeast(0), Importance.LOW,
          "A table that gets no files for this many commit cycles in a row while its partitions"
              + " move on (a rare route.field value, records all bad) is committed without files,"
              + " storing the offsets reached; so is such a table at the sink's last cycle (stop,"
              + " partitions given away). A restart or rebalance then resumes from there instead"
              + " of re-reading everything since the table's last data. 0: never.")
      .define(STORAGE_RETRY_TIMEOUT, Type.STRING, "5m", zeroOrDurationValidator(), Importance.MEDIUM,
          "How long an outage of the tables' storage or catalog may last: a cycle that fails on one"
              + " (an I/O error, a 5xx, a commit whose outcome stayed unknown) is dropped and read"
              + " again from the tables after a wait (1s, doubling up to 30s); the sink stops when the"
              + " failures go on past this. 0: stop at the first.");

  private SinkSettings() {}

  /** The definition (a copy: the caller may add settings of its own, as a connector does). */
  public static ConfigDef definition() {
    return new ConfigDef(DEFINITION);
  }

  /**
   * Parses and checks {@code settings} (text or typed values, by name); absent ones take their
   * defaults.
   *
   * @throws ConfigException naming the setting that is wrong, or every name that is not a setting
   */
  public static Map<String, Object> parse(Map<String, ?> settings) {
    Set<String> unknown = new TreeSet<>(settings.keySet());
    unknown.removeAll(DEFINITION.names());
    if (!unknown.isEmpty()) {
      throw new ConfigException("not sink settings: " + unknown + " (settings: " + new TreeSet<>(DEFINITION.names()) + ")");
    }
    return DEFINITION.parse(settings);
  }

  /** The default value of {@code name}, parsed. */
  static Object defaultValue(String name) {
    return DEFINITION.defaultValues().get(name);
  }

  /** A duration as the settings take it: {@code 10s}, {@code 500ms}, {@code 2m}, {@code 1h}; a bare number is seconds. */
  public static Duration duration(Object text) {
    Matcher m = DURATION.matcher(String.valueOf(text).strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a duration (e.g. 10s, 500ms, 2m)");
    }
    double number = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    double millis = switch (unit) {
      case "ms" -> number;
      case "m" -> number * 60_000;
      case "h" -> number * 3_600_000;
      default -> number * 1000;
    };
    if (millis < 1) {
      throw new IllegalArgumentException("'" + text + "' must be at least 1 ms");
    }
    return Duration.ofMillis((long) millis);
  }

  /** {@link #duration}, or zero for {@code 0}: a period that may be turned off. */
  static Duration zeroOrDuration(Object text) {
    return String.valueOf(text).strip().equals("0") ? Duration.ZERO : duration(text);
  }

  static long bytes(Object text) {
    return ByteSizes.parse(String.valueOf(text));
  }

  /**
   * Route entries {@code KEY=NAMESPACE.TABLE} (a topic's, or a route value's regex), in order. A
   * key given twice is refused: one entry would have been dropped without a word (helper-89).
   */
  static Map<String, TableIdentifier> routes(String setting, List<String> entries) {
    String expected = "expected " + (setting.equals(ROUTE) ? "TOPIC" : "REGEX") + "=NAMESPACE.TABLE";
    Map<String, TableIdentifier> out = new java.util.LinkedHashMap<>();
    for (String entry : entries) {
      int eq = entry.lastIndexOf('=');
      if (eq <= 0 || eq == entry.length() - 1) {
        throw new ConfigException(setting, entry, expected);
      }
      TableIdentifier table = TableIdentifier.parse(entry.substring(eq + 1).strip());
      if (!table.hasNamespace() || table.name().isEmpty()) { // "t" or "db.": as floe write refuses them (helper-79)
        throw new ConfigException(setting, entry, expected);
      }
      String key = entry.substring(0, eq).strip();
      TableIdentifier earlier = out.putIfAbsent(key, table);
      if (earlier != null) {
        throw new ConfigException(setting, entry, (setting.equals(ROUTE)
            ? "topic '" + key + "' is routed twice (to " + earlier + " first): a topic goes to one table"
            : "regex '" + key + "' is given twice (for " + earlier + " first): the first rule that matches wins, so"
                + " the second would take nothing"));
      }
    }
    return out;
  }

  /** The schema of created tables: JSON (an object) or the path of a file that holds it. */
  static Schema schema(String value) {
    return value.strip().startsWith("{")
        ? SchemaFiles.parse(value, "the " + SCHEMA + " setting")
        : SchemaFiles.read(Path.of(value.strip()));
  }

  /** Created tables: format v2, the schema, the partitioning. */
  static void createTables(SinkConfig.Builder builder, String schemaValue, String partitionBy) {
    if (schemaValue == null) {
      if (partitionBy != null) {
        throw new ConfigException(PARTITION_BY, partitionBy, "applies to created tables: set " + SCHEMA + " too");
      }
      return;
    }
    Schema schema = schema(schemaValue);
    PartitionSpec spec = partitionBy == null ? PartitionSpec.unpartitioned() : PartitionSpecs.parse(partitionBy, schema);
    builder.createTables(schema, spec, new HashMap<>(Map.of(TableProperties.FORMAT_VERSION, "2")));
  }

  private static ConfigDef.Validator durationValidator() {
    return parses(SinkSettings::duration);
  }

  private static ConfigDef.Validator zeroOrDurationValidator() {
    return parses(SinkSettings::zeroOrDuration);
  }

  /** A validator that accepts what {@code parse} accepts, naming the setting otherwise. */
  private static ConfigDef.Validator parses(java.util.function.Function<Object, ?> parse) {
    return (name, value) -> {
      try {
        parse.apply(value);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(name, value, e.getMessage());
      }
    };
  }

  private static ConfigDef.Validator sizeValidator(long max) {
    return (name, value) -> {
      try {
        if (bytes(value) > max) {
          throw new ConfigException(name, value, "at most " + max + " bytes");
        }
      } catch (IllegalArgumentException e) {
        throw new ConfigException(name, value, e.getMessage());
      }
    };
  }
}
