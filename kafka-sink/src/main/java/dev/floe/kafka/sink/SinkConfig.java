package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkSettings.BATCH_BYTES;
import static dev.floe.kafka.sink.SinkSettings.BATCH_RECORDS;
import static dev.floe.kafka.sink.SinkSettings.COMMIT_BYTES;
import static dev.floe.kafka.sink.SinkSettings.COMMIT_INTERVAL;
import static dev.floe.kafka.sink.SinkSettings.COMMIT_RECORDS;
import static dev.floe.kafka.sink.SinkSettings.DECODE_AHEAD;
import static dev.floe.kafka.sink.SinkSettings.DLQ_TOPIC;
import static dev.floe.kafka.sink.SinkSettings.ENCODE_AHEAD;
import static dev.floe.kafka.sink.SinkSettings.ENCODE_THREADS;
import static dev.floe.kafka.sink.SinkSettings.EXPIRE_SNAPSHOTS_EVERY;
import static dev.floe.kafka.sink.SinkSettings.IDLE_COMMIT_CYCLES;
import static dev.floe.kafka.sink.SinkSettings.EVOLVE_SCHEMA;
import static dev.floe.kafka.sink.SinkSettings.KAFKA_TIMEOUT;
import static dev.floe.kafka.sink.SinkSettings.MAX_IN_FLIGHT_BYTES;
import static dev.floe.kafka.sink.SinkSettings.ON_ERROR;
import static dev.floe.kafka.sink.SinkSettings.OVERLAP_COMMITS;
import static dev.floe.kafka.sink.SinkSettings.PARTITION_BY;
import static dev.floe.kafka.sink.SinkSettings.ROUTE;
import static dev.floe.kafka.sink.SinkSettings.ROUTE_FIELD;
import static dev.floe.kafka.sink.SinkSettings.ROUTE_VALUE;
import static dev.floe.kafka.sink.SinkSettings.SCHEMA;
import static dev.floe.kafka.sink.SinkSettings.STOP_AT_END;
import static dev.floe.kafka.sink.SinkSettings.STORAGE_RETRY_TIMEOUT;
import static dev.floe.kafka.sink.SinkSettings.TOPIC;
import static dev.floe.kafka.sink.SinkSettings.UPSERT;
import static dev.floe.kafka.sink.SinkSettings.defaultValue;

import dev.floe.arrow.BadRecordPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Everything a {@link KafkaIcebergSink} needs: where to read, where each record goes, when to
 * commit, and what to do with bad records. Build with {@link #builder(Catalog, String, String)}.
 *
 * @param catalog where the tables live
 * @param bootstrapServers Kafka brokers
 * @param group the consumer group; also names the offsets stored in each table
 * @param topics topics to subscribe to (or empty with {@code topicPattern})
 * @param topicPattern a pattern of topics to subscribe to, or null
 * @param routes where records go: the first matching route wins; records matching none are bad
 * @param routeField a top-level JSON string field whose value routes records, or null
 * @param commitInterval commit at least this often
 * @param commitRecords ... or after this many records
 * @param commitBytes ... or after this many payload bytes, whichever comes first: bounds what a
 *     cycle holds until its commit (the upsert writer's key index among it)
 * @param batchRecords messages per native decode batch
 * @param batchBytes payload bytes per native decode batch
 * @param maxInFlightBytes memory for record data in the sink, at most 2 GiB: a quarter for decode
 *     batches (payload handed to the writers and not yet written, plus spare batches), the rest
 *     for rows the open files buffer before a row group is written (past it, row groups are
 *     written early). The consumer waits while the batches' share is used up: backpressure
 * @param badRecords what happens to records that do not decode
 * @param deadLetterTopic the dead-letter topic for {@link BadRecordPolicy#DEAD_LETTER}
 * @param upsert replace rows by the tables' identifier fields instead of appending
 * @param evolveSchema evolve the tables' schemas from the records (see {@code evolve.schema} in
 *     {@link SinkSettings}); with upsert too
 * @param createSchema the schema of tables created when missing, or null to require them
 * @param createSpec their partition spec
 * @param createProperties their table properties
 * @param consumerProperties extra Kafka client settings: plain keys for the consumer (and, where
 *     they apply, the admin client and the dead-letter producer), {@code producer.}-prefixed keys
 *     for the dead-letter producer only
 * @param stopAtEnd stop after committing everything up to the end offsets seen at start; in a
 *     group with more members than partitions, a sink given none stops after taking over the
 *     partitions of members that stopped (at what the tables hold, so it reads nothing again)
 * @param kafkaTimeout how long the start waits for the broker to answer (see {@code kafka.timeout})
 * @param encodeThreads threads encoding each file's columns, besides the table's writer thread
 *     (1: the writer thread alone; see {@code NativeFileWriterFactory#withEncoding})
 * @param encodeAhead with one encode thread, encode each file's column runs on threads shared by
 *     every writer while the writer thread goes on (see {@code ParquetWriterConfig#encodeAhead})
 * @param decodeAhead decode each table's batches on a thread of their own, ahead of its writer
 *     thread (true), or decode and encode both on the writer thread (false)
 * @param overlapCommits commit each cycle on a thread of its own while the next one fills
 * @param expireSnapshotsEvery expire each table's old snapshots this often, by the table's own
 *     retention properties ({@link dev.floe.iceberg.SnapshotExpiry}); zero: never
 * @param idleCommitCycles commit a table without files, storing the offsets reached, once it got
 *     no files for this many cycles while its partitions moved on, and at the last cycle; zero:
 *     never (see {@code idle.commit.cycles})
 * @param storageRetryTimeout how long cycles that fail on an outage of the tables' storage or
 *     catalog are dropped and read again before the sink stops ({@code storage.retry.timeout});
 *     zero: stop at the first
 *     (true), or stop consuming until it has landed (false)
 */
public record SinkConfig(
    Catalog catalog,
    String bootstrapServers,
    String group,
    List<String> topics,
    Pattern topicPattern,
    List<TableRoute> routes,
    String routeField,
    Duration commitInterval,
    long commitRecords,
    long commitBytes,
    int batchRecords,
    long batchBytes,
    long maxInFlightBytes,
    BadRecordPolicy badRecords,
    String deadLetterTopic,
    boolean upsert,
    boolean evolveSchema,
    Schema createSchema,
    PartitionSpec createSpec,
    Map<String, String> createProperties,
    Map<String, Object> consumerProperties,
    boolean stopAtEnd,
    Duration kafkaTimeout,
    int encodeThreads,
    boolean encodeAhead,
    boolean decodeAhead,
    boolean overlapCommits,
    Duration expireSnapshotsEvery,
    int idleCommitCycles,
    Duration storageRetryTimeout) {

  public SinkConfig {
    Objects.requireNonNull(catalog, "catalog");
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    Objects.requireNonNull(group, "group");
    if (routes.isEmpty()) {
      throw new IllegalArgumentException("give at least one route (topic -> table)");
    }
    if (topics.isEmpty() == (topicPattern == null)) {
      throw new IllegalArgumentException("give either topics or a topic pattern");
    }
    requireRoutable(topics, routes, routeField);
    if (badRecords == BadRecordPolicy.DEAD_LETTER && deadLetterTopic == null) {
      throw new IllegalArgumentException("bad records to a dead-letter topic need the topic's name (dlq.topic)");
    }
    if (badRecords != BadRecordPolicy.DEAD_LETTER && deadLetterTopic != null) {
      throw new IllegalArgumentException("a dead-letter topic (dlq.topic = " + deadLetterTopic + ") goes with bad "
          + "records sent to it (on.error = dlq), not " + badRecords + ": it would not be used");
    }
    if (encodeThreads < 1) {
      throw new IllegalArgumentException("encodeThreads must be at least 1, got " + encodeThreads);
    }
    requirePositive("commitRecords", commitRecords);
    requirePositive("commitBytes", commitBytes);
    requirePositive("batchRecords", batchRecords);
    requirePositive("batchBytes", batchBytes);
    requirePositive("maxInFlightBytes", maxInFlightBytes);
    if (maxInFlightBytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "maxInFlightBytes must be at most " + Integer.MAX_VALUE + " (2 GiB), got " + maxInFlightBytes);
    }
    if (idleCommitCycles < 0) {
      throw new IllegalArgumentException("idleCommitCycles must be at least 0, got " + idleCommitCycles);
    }
    if (storageRetryTimeout == null || storageRetryTimeout.isNegative()) {
      throw new IllegalArgumentException("storageRetryTimeout must be zero or positive, got " + storageRetryTimeout);
    }
    if (commitInterval == null || commitInterval.isNegative() || commitInterval.isZero()) {
      throw new IllegalArgumentException("commitInterval must be positive, got " + commitInterval);
    }
  }

  /** The share of {@link #maxInFlightBytes} for decode batches, in flight or spare. */
  public long batchBudgetBytes() {
    return Math.max(1, maxInFlightBytes / 4);
  }

  /**
   * Refuses routes that cannot all be used (helper-79: a topic without a route given beside topic
   * routes had every record bad, skipped under on.error=skip with the run reported a success):
   * value routes and a route field go together, and without a route field every topic named needs
   * a route of its own.
   */
  private static void requireRoutable(List<String> topics, List<TableRoute> routes, String routeField) {
    boolean byValue = routes.stream().anyMatch(route -> route.values() != null);
    if (byValue && routeField == null) {
      throw new IllegalArgumentException("routes by value (route.value) need the field they read (route.field)");
    }
    if (routeField != null && !byValue) {
      throw new IllegalArgumentException("route.field " + routeField + " needs routes by its value (route.value)");
    }
    // a topic, or a value regex of the same topics, routed twice: the first route takes every record
    java.util.Map<String, TableIdentifier> seen = new java.util.HashMap<>();
    for (TableRoute route : routes) {
      String routed = route.topics().pattern();
      String key = route.values() == null
          ? "topic '" + unquoted(routed) + "'"
          : "value regex '" + route.values().pattern() + "'" + (routed.equals(".*") ? "" : " of topics '" + routed + "'");
      TableIdentifier earlier = seen.putIfAbsent(key, route.table());
      if (earlier != null) {
        throw new IllegalArgumentException(key + " is routed twice (to " + earlier + " and " + route.table()
            + "): give each one route");
      }
    }
    if (routeField == null) {
      List<String> unrouted = topics.stream().filter(t -> routes.stream().noneMatch(r -> r.matchesTopic(t))).toList();
      if (!unrouted.isEmpty()) {
        throw new IllegalArgumentException("no route for topic " + String.join(", ", unrouted) + ": give each topic"
            + " read a route (route), or route every topic's records by a field (route.field with route.value)");
      }
    }
  }

  /** A topic's name from its route's pattern ({@code Pattern.quote}: topic names hold no backslash). */
  private static String unquoted(String pattern) {
    return pattern.startsWith("\\Q") && pattern.endsWith("\\E") ? pattern.substring(2, pattern.length() - 2) : pattern;
  }

  private static void requirePositive(String name, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive, got " + value);
    }
  }

  public static Builder builder(Catalog catalog, String bootstrapServers, String group) {
    return new Builder(catalog, bootstrapServers, group);
  }

  /**
   * Builder with the defaults of {@link SinkSettings}, sized for one machine: commit every 10 s,
   * 1,000,000 records or 256 MiB of payload, 8192-message (at most 4 MiB) batches, 256 MiB for
   * record data (64 MiB of it for batches).
   */
  public static final class Builder {
    private final Catalog catalog;
    private final String bootstrapServers;
    private final String group;
    private final List<String> topics = new ArrayList<>();
    private Pattern topicPattern;
    private final List<TableRoute> routes = new ArrayList<>();
    private String routeField;
    private Duration commitInterval = SinkSettings.duration(defaultValue(COMMIT_INTERVAL));
    private long commitRecords = (Long) defaultValue(COMMIT_RECORDS);
    private long commitBytes = SinkSettings.bytes(defaultValue(COMMIT_BYTES));
    private int batchRecords = (Integer) defaultValue(BATCH_RECORDS);
    private long batchBytes = SinkSettings.bytes(defaultValue(BATCH_BYTES));
    private long maxInFlightBytes = SinkSettings.bytes(defaultValue(MAX_IN_FLIGHT_BYTES));
    private BadRecordPolicy badRecords = BadRecordPolicy.of((String) defaultValue(ON_ERROR));
    private String deadLetterTopic;
    private boolean upsert = (Boolean) defaultValue(UPSERT);
    private boolean evolveSchema = (Boolean) defaultValue(EVOLVE_SCHEMA);
    private int encodeThreads = (Integer) defaultValue(ENCODE_THREADS);
    private boolean encodeAhead = (Boolean) defaultValue(ENCODE_AHEAD);
    private boolean decodeAhead = (Boolean) defaultValue(DECODE_AHEAD);
    private boolean overlapCommits = (Boolean) defaultValue(OVERLAP_COMMITS);
    private Duration expireSnapshotsEvery = SinkSettings.zeroOrDuration(defaultValue(EXPIRE_SNAPSHOTS_EVERY));
    private int idleCommitCycles = (Integer) defaultValue(IDLE_COMMIT_CYCLES);
    private Duration storageRetryTimeout = SinkSettings.zeroOrDuration(defaultValue(STORAGE_RETRY_TIMEOUT));
    private Schema createSchema;
    private PartitionSpec createSpec;
    private final Map<String, String> createProperties = new HashMap<>();
    private final Map<String, Object> consumerProperties = new HashMap<>();
    private boolean stopAtEnd = (Boolean) defaultValue(STOP_AT_END);
    private Duration kafkaTimeout = SinkSettings.duration(defaultValue(KAFKA_TIMEOUT));

    private Builder(Catalog catalog, String bootstrapServers, String group) {
      this.catalog = catalog;
      this.bootstrapServers = bootstrapServers;
      this.group = group;
    }

    /**
     * Applies {@link SinkSettings} given by name (text or typed values, e.g. from a properties
     * file, command-line flags or a connector's configuration); absent ones keep what this builder
     * has. Routes and topics are added to those already given.
     *
     * @throws org.apache.kafka.common.config.ConfigException naming a setting that is wrong, or
     *     names that are not settings
     */
    public Builder settings(Map<String, ?> given) {
      Map<String, Object> parsed = SinkSettings.parse(given);
      SinkSettings.routes(ROUTE, list(parsed, ROUTE)).forEach(this::route);
      topics(list(parsed, TOPIC));
      if (parsed.get(ROUTE_FIELD) != null) {
        routeField((String) parsed.get(ROUTE_FIELD));
      }
      SinkSettings.routes(ROUTE_VALUE, list(parsed, ROUTE_VALUE)).forEach(this::routeValue);
      SinkSettings.createTables(this, (String) parsed.get(SCHEMA), (String) parsed.get(PARTITION_BY));
      if (given.containsKey(COMMIT_INTERVAL)) {
        commitInterval = SinkSettings.duration(parsed.get(COMMIT_INTERVAL));
      }
      if (given.containsKey(COMMIT_RECORDS)) {
        commitRecords = (Long) parsed.get(COMMIT_RECORDS);
      }
      if (given.containsKey(COMMIT_BYTES)) {
        commitBytes = SinkSettings.bytes(parsed.get(COMMIT_BYTES));
      }
      if (given.containsKey(BATCH_RECORDS)) {
        batchRecords = (Integer) parsed.get(BATCH_RECORDS);
      }
      if (given.containsKey(BATCH_BYTES)) {
        batchBytes = SinkSettings.bytes(parsed.get(BATCH_BYTES));
      }
      if (given.containsKey(MAX_IN_FLIGHT_BYTES)) {
        maxInFlightBytes = SinkSettings.bytes(parsed.get(MAX_IN_FLIGHT_BYTES));
      }
      if (parsed.get(DLQ_TOPIC) != null) {
        deadLetterTopic = (String) parsed.get(DLQ_TOPIC);
        badRecords = BadRecordPolicy.DEAD_LETTER; // the topic alone asks for it, as floe write's --dlq does
      }
      if (given.containsKey(ON_ERROR)) {
        badRecords = BadRecordPolicy.of((String) parsed.get(ON_ERROR)); // and with another policy, is refused
      }
      if (given.containsKey(UPSERT)) {
        upsert = (Boolean) parsed.get(UPSERT);
      }
      if (given.containsKey(EVOLVE_SCHEMA)) {
        evolveSchema = (Boolean) parsed.get(EVOLVE_SCHEMA);
      }
      if (given.containsKey(STOP_AT_END)) {
        stopAtEnd = (Boolean) parsed.get(STOP_AT_END);
      }
      if (given.containsKey(KAFKA_TIMEOUT)) {
        kafkaTimeout = SinkSettings.duration(parsed.get(KAFKA_TIMEOUT));
      }
      if (given.containsKey(ENCODE_THREADS)) {
        encodeThreads = (Integer) parsed.get(ENCODE_THREADS);
      }
      if (given.containsKey(ENCODE_AHEAD)) {
        encodeAhead = (Boolean) parsed.get(ENCODE_AHEAD);
      }
      if (given.containsKey(DECODE_AHEAD)) {
        decodeAhead = (Boolean) parsed.get(DECODE_AHEAD);
      }
      if (given.containsKey(OVERLAP_COMMITS)) {
        overlapCommits = (Boolean) parsed.get(OVERLAP_COMMITS);
      }
      if (given.containsKey(EXPIRE_SNAPSHOTS_EVERY)) {
        expireSnapshotsEvery = SinkSettings.zeroOrDuration(parsed.get(EXPIRE_SNAPSHOTS_EVERY));
      }
      if (given.containsKey(IDLE_COMMIT_CYCLES)) {
        idleCommitCycles = (Integer) parsed.get(IDLE_COMMIT_CYCLES);
      }
      if (given.containsKey(STORAGE_RETRY_TIMEOUT)) {
        storageRetryTimeout = SinkSettings.zeroOrDuration(parsed.get(STORAGE_RETRY_TIMEOUT));
      }
      return this;
    }

    @SuppressWarnings("unchecked")
    private static List<String> list(Map<String, Object> parsed, String name) {
      return (List<String>) parsed.get(name);
    }

    /** Reads {@code topic} into {@code table}. */
    public Builder route(String topic, TableIdentifier table) {
      topics.add(topic);
      routes.add(TableRoute.topic(topic, table));
      return this;
    }

    public Builder topics(List<String> names) {
      topics.addAll(names);
      return this;
    }

    public Builder topicPattern(Pattern pattern) {
      this.topicPattern = pattern;
      return this;
    }

    /** Routes by a top-level string field; add rules with {@link #routeValue}. */
    public Builder routeField(String field) {
      this.routeField = field;
      return this;
    }

    /** Records whose route field value matches {@code regex} go to {@code table}. */
    public Builder routeValue(String regex, TableIdentifier table) {
      routes.add(TableRoute.value(regex, table));
      return this;
    }

    public Builder commitEvery(Duration interval, long records, long bytes) {
      this.commitInterval = interval;
      this.commitRecords = records;
      this.commitBytes = bytes;
      return this;
    }

    public Builder batches(int records, long bytes, long maxInFlight) {
      this.batchRecords = records;
      this.batchBytes = bytes;
      this.maxInFlightBytes = maxInFlight;
      return this;
    }

    public Builder badRecords(BadRecordPolicy mode, String deadLetterTopic) {
      this.badRecords = mode;
      this.deadLetterTopic = deadLetterTopic;
      return this;
    }

    public Builder upsert(boolean enabled) {
      this.upsert = enabled;
      return this;
    }

    /**
     * Evolve the tables' schemas from the records (default false): add the fields they carry and
     * the tables lack, widen columns whose values need it. With upsert too.
     */
    public Builder evolveSchema(boolean enabled) {
      this.evolveSchema = enabled;
      return this;
    }

    /** Creates missing tables with this schema, spec and properties. */
    public Builder createTables(Schema schema, PartitionSpec spec, Map<String, String> properties) {
      this.createSchema = schema;
      this.createSpec = spec;
      this.createProperties.putAll(properties);
      return this;
    }

    /**
     * A Kafka client setting: the consumer's (shared settings such as security also reach the
     * admin client and the dead-letter producer), or, prefixed {@code producer.}, the dead-letter
     * producer's alone, e.g. {@code producer.max.request.size}.
     */
    public Builder consumerProperty(String key, Object value) {
      consumerProperties.put(key, value);
      return this;
    }

    public Builder stopAtEnd(boolean stop) {
      this.stopAtEnd = stop;
      return this;
    }

    /**
     * How long {@code run()} waits at its start for the broker to answer (default 60 s); past it,
     * it fails naming the servers, where a Kafka consumer would wait without a word.
     */
    public Builder kafkaTimeout(Duration timeout) {
      this.kafkaTimeout = timeout;
      return this;
    }

    /**
     * Threads encoding each file's columns (default 1). More help when cores sit idle while a
     * table's writer thread is busy; files are the same either way.
     */
    public Builder encodeThreads(int threads) {
      this.encodeThreads = threads;
      return this;
    }

    /**
     * With one encode thread, encode each file's column runs on threads shared by every writer
     * (one per core) while the table's writer thread goes on with the next batches (default
     * true): the decode thread and the consumer are not held up while runs are encoded. Files
     * are the same either way.
     */
    public Builder encodeAhead(boolean enabled) {
      this.encodeAhead = enabled;
      return this;
    }

    /**
     * Decode batch N+1 on a thread of its own while the writer thread encodes batch N (default
     * true): two cores per table instead of one. Off, one thread per table does both.
     */
    public Builder decodeAhead(boolean enabled) {
      this.decodeAhead = enabled;
      return this;
    }

    /**
     * Commit each cycle on a thread of its own while the consumer goes on filling the next one
     * (default true): the files of a cycle are finished and committed in the background, and the
     * next cycle's commit waits for it. Off, consuming stops from the end of a cycle until its
     * commit has landed. Exactly-once either way: a cycle's offsets land with its files.
     */
    public Builder overlapCommits(boolean enabled) {
      this.overlapCommits = enabled;
      return this;
    }

    /**
     * Expire each table's old snapshots this often, after a commit (default never), by the
     * table's own retention properties: {@code history.expire.max-snapshot-age-ms} and {@code
     * history.expire.min-snapshots-to-keep}. The offsets stay in the table property when the
     * snapshots that carried them are gone.
     */
    public Builder expireSnapshotsEvery(Duration interval) {
      this.expireSnapshotsEvery = interval;
      return this;
    }

    /**
     * Commit a table that got no files for this many cycles in a row, while its partitions moved
     * on, without files: it stores the offsets reached, and a restart or rebalance resumes from
     * them instead of re-reading everything since the table's last data (route-field mode with a
     * rare value; records that were all bad). Such a table is also committed at the sink's last
     * cycle (stop, partitions given away). Default 10; 0: never.
     */
    public Builder idleCommitCycles(int cycles) {
      this.idleCommitCycles = cycles;
      return this;
    }

    /**
     * How long cycles that fail on an outage of the tables' storage or catalog are dropped and read
     * again before the sink stops (default 5 minutes; zero: stop at the first).
     */
    public Builder storageRetryTimeout(Duration timeout) {
      this.storageRetryTimeout = timeout;
      return this;
    }

    public SinkConfig build() {
      return new SinkConfig(
          catalog,
          bootstrapServers,
          group,
          List.copyOf(topics.stream().distinct().toList()),
          topicPattern,
          List.copyOf(routes),
          routeField,
          commitInterval,
          commitRecords,
          commitBytes,
          batchRecords,
          batchBytes,
          maxInFlightBytes,
          badRecords,
          deadLetterTopic,
          upsert,
          evolveSchema,
          createSchema,
          createSpec,
          Map.copyOf(createProperties),
          Map.copyOf(consumerProperties),
          stopAtEnd,
          kafkaTimeout,
          encodeThreads,
          encodeAhead,
          decodeAhead,
          overlapCommits,
          expireSnapshotsEvery,
          idleCommitCycles,
          storageRetryTimeout);
    }
  }
}
