package dev.floe.kafka.sink;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.ShownText;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.SnapshotExpiry;
import dev.floe.kafka.sink.SnapshotOffsets.Position;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Semaphore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes Kafka topics and lands every record in Iceberg tables exactly once.
 *
 * <p>The consumer thread routes each record to its table and packs it into an off-heap message
 * batch; each table's threads decode and encode batches natively while the consumer keeps
 * fetching. Every commit cycle ({@link SinkConfig#commitInterval()}, or N records, or N bytes)
 * each table gets one Iceberg commit adding the cycle's files, with the consumed offsets and a
 * commit id in the same snapshot's summary ({@link SnapshotOffsets}). A cycle is committed on a
 * thread of its own while the next one fills ({@link SinkConfig#overlapCommits()}); the next
 * cycle's commit waits for it, and a rebalance or the end of the run waits for both. On every
 * partition assignment the sink resumes from the offsets stored in the tables; Kafka's group
 * offsets are committed once a whole cycle has landed, and count only for a table that stored no
 * offset of a partition. A commit whose table offsets moved under it is fenced ({@link
 * FencedException}): instead of writing twice, the sink drops the cycle and resumes from the
 * tables. So it does after a cycle failed on an outage of the tables' storage or catalog, after a
 * wait, for up to {@link SinkConfig#storageRetryTimeout()}. {@code docs/sink-guarantees.md} says
 * what is exactly once and what is not.
 *
 * <pre>{@code
 * SinkConfig config = SinkConfig.builder(catalog, "localhost:9092", "floe-sink")
 *     .route("bids", TableIdentifier.of("nexmark", "bids"))
 *     .build();
 * try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
 *   sink.run(); // until stop(), or the end of the topics with stopAtEnd
 * }
 * }</pre>
 *
 * <p>{@link #run()} runs on the calling thread; {@link #stop()} may be called from any thread.
 */
public final class KafkaIcebergSink implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaIcebergSink.class);
  /** How long a synchronous commit of group offsets may take (they are a hint; the tables hold the offsets). */
  private static final Duration GROUP_COMMIT_TIMEOUT = Duration.ofSeconds(5);

  private final SinkConfig config;
  private final BufferAllocator allocator = new RootAllocator();
  private final SinkMetrics metrics = new SinkMetrics();
  private final Semaphore inFlight;
  private final Semaphore fileBuffers;
  private final BatchPool pool;
  private final Map<TableIdentifier, TableChannel> channels = new LinkedHashMap<>();
  private final Map<String, TableChannel> byTopic = new HashMap<>();
  /** One message source per partition read, shared by its records in every batch. */
  private final Map<TopicPartition, PartitionSource> sources = new HashMap<>();
  private final RouteField routeField;
  private final DeadLetters deadLetters;
  private final CommitStage commits;
  /** Riding out an outage of the tables' storage or catalog (consumer thread). */
  private final OutageRetries outages;
  private final TopicIds topicIds;
  // Values arrive as views of the fetched bytes (no per-record byte[]): copied once, into a batch.
  private final KafkaConsumer<ByteBuffer, ByteBuffer> consumer;
  private final Set<TopicPartition> assigned = new HashSet<>();
  /**
   * The topic id each assigned partition was resumed under: its positions are offsets of that
   * topic, and are stored with it. A topic deleted and created again while the sink keeps the
   * partition goes on being read from the old positions; the commit then finds the id changed
   * ({@link CommitStage}) and stops the sink instead of storing them.
   */
  private final Map<TopicPartition, String> readUnder = new HashMap<>();
  /**
   * The leader epoch of the record before each partition's position (the last one read, or the
   * one the position was sought with): stored with the offsets, so that a sink resuming from them
   * has the broker check that the log was not truncated under them meanwhile. Absent: unknown.
   */
  private final Map<TopicPartition, EpochAt> positionEpochs = new HashMap<>();

  /** A position and the leader epoch of the record before it. */
  private record EpochAt(long offset, int epoch) {}
  /** Route-field mode, one poll's: where records under a table's floor show its log was truncated. */
  private final Map<TopicPartition, OffsetAndMetadata> writtenAfterTruncation = new HashMap<>();
  private Map<TopicPartition, Long> endOffsets;
  private long cycleRecords;
  /** Whether the first tombstone skipped in append mode was logged (the rest are only counted). */
  private boolean warnedTombstones;
  private long cycleBytes;
  private long cycleStarted = System.nanoTime();
  private volatile boolean stopping;
  /** Set when run() fails or stops without its cycle: nothing more may be committed from it. */
  private boolean failed;
  /** Set by close(): rebalance callbacks the consumer still runs as it closes have nothing to commit. */
  private boolean closing;

  /**
   * Checks Kafka first (a broker that does not answer, a missing topic the sink is to read to its
   * end) and the keyed-write rules of tables to create, then loads or creates the tables: a sink
   * that cannot start leaves no table behind.
   *
   * @throws SinkException naming what stands in the way
   */
  public KafkaIcebergSink(SinkConfig config) {
    this.config = config;
    this.inFlight = new Semaphore((int) config.batchBudgetBytes());
    this.fileBuffers = new Semaphore((int) (config.maxInFlightBytes() - config.batchBudgetBytes()));
    this.routeField = config.routeField() == null ? null : new RouteField(config.routeField());
    boolean deadLettering = config.badRecords() == BadRecordPolicy.DEAD_LETTER;
    this.pool = new BatchPool(inFlight, deadLettering);
    try {
      this.deadLetters = deadLettering ? new DeadLetters(config.deadLetterTopic(), KafkaClients.producer(config)) : null;
      this.topicIds = new TopicIds(KafkaClients.admin(config));
      this.outages = new OutageRetries(config.storageRetryTimeout(), SinkSettings.STORAGE_RETRY_TIMEOUT);
      this.commits = new CommitStage(new TableCommitter(config.group()), deadLetters,
          SnapshotExpiry.every(config.expireSnapshotsEvery()), topicIds, config.group(),
          config.idleCommitCycles());
      // Deserializer instances win over any deserializer the consumer properties name.
      this.consumer =
          new KafkaConsumer<>(KafkaClients.consumer(config), new ByteBufferDeserializer(), new ByteBufferDeserializer());
      TableChannel.Shared shared =
          new TableChannel.Shared(config, allocator, inFlight, fileBuffers, pool, deadLetters, metrics, () -> stopping);
      checkKafka(); // before any table is created: a sink that cannot start leaves none behind
      for (TableRoute route : config.routes()) {
        channels.computeIfAbsent(route.table(), id -> new TableChannel(id, loadOrCreate(id), shared));
      }
    } catch (RuntimeException e) {
      try {
        close(); // what was made so far: a bad consumer property must not leak the producer and admin clients
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    metrics.register(config.group());
  }

  private Table loadOrCreate(TableIdentifier id) {
    try {
      return config.catalog().loadTable(id);
    } catch (NoSuchTableException missing) {
      if (config.createSchema() == null) {
        throw new SinkException("table " + id + " does not exist and no schema was given to create it", missing);
      }
      String notByKey = config.upsert() ? NativeFileWriterFactory.keyedWritesRefusal(id.toString(),
          config.createSchema(), config.createSpec(), formatVersion(config.createProperties())) : null;
      if (notByKey != null) {
        throw new SinkException("table " + id + " does not exist, and as the schema given would create it, it could not"
            + " take upserts: " + notByKey + " (identifier-field-ids in the schema's JSON); nothing was created", missing);
      }
      try {
        return config.catalog().createTable(id, config.createSchema(), config.createSpec(), config.createProperties());
      } catch (AlreadyExistsException raced) {
        return config.catalog().loadTable(id); // another sink created it first
      }
    }
  }

  /** The format version a table created with {@code properties} gets (Iceberg's default: 2). */
  private static int formatVersion(Map<String, String> properties) {
    return properties == null ? 2 : Integer.parseInt(properties.getOrDefault(TableProperties.FORMAT_VERSION, "2"));
  }

  /** The sink's counters (also registered over JMX). */
  public SinkMetricsMXBean metrics() {
    return metrics;
  }

  /**
   * Consumes and commits until {@link #stop()} (then commits what was consumed) or, with {@link
   * SinkConfig#stopAtEnd()}, until everything up to the end offsets seen at assignment is
   * committed.
   *
   * @throws SinkException on a bad record under FAIL, a write failure no outage explains, an
   *     outage of the tables' storage or catalog past {@link SinkConfig#storageRetryTimeout()};
   *     nothing uncommitted is kept, and a restart resumes from the tables' offsets
   */
  public void run() {
    Listener listener = new Listener();
    if (config.topicPattern() != null) {
      consumer.subscribe(config.topicPattern(), listener);
    } else {
      consumer.subscribe(config.topics(), listener);
    }
    try {
      consume();
    } catch (RuntimeException e) {
      failed = true;
      throw unwrapped(e);
    } catch (Error e) {
      failed = true;
      throw e;
    } finally {
      try {
        consumer.unsubscribe(); // with `failed` set, revocation commits nothing
      } catch (RuntimeException e) {
        if (!failed) { // the revocation's commit failed
          failed = true;
          throw unwrapped(e);
        }
        LOG.warn("could not leave the group after the failure below: {}", e.toString()); // keeps the failure
      }
    }
  }

  /** A failure inside a rebalance callback (a commit on revocation) reaches us wrapped by Kafka. */
  private static RuntimeException unwrapped(RuntimeException e) {
    return e instanceof KafkaException && e.getCause() instanceof RuntimeException cause && isSinkFailure(cause)
        ? cause
        : e;
  }

  private static boolean isSinkFailure(RuntimeException e) {
    return e instanceof SinkException || e instanceof FencedException;
  }

  private void consume() {
    try {
      while (!stopping) {
        ConsumerRecords<ByteBuffer, ByteBuffer> records;
        try {
          records = consumer.poll(Duration.ofMillis(200));
        } catch (WakeupException e) {
          continue; // stop() woke the poll
        } catch (LogTruncationException e) {
          truncated(e);
          continue;
        } catch (OffsetOutOfRangeException e) {
          outOfRange(e.offsetOutOfRangePartitions());
          continue;
        } catch (NoOffsetForPartitionException e) {
          positionsNotSought(e);
          continue;
        } catch (KafkaException e) {
          // A rebalance callback's commit or resume met an outage: Kafka went on with the
          // rebalance, and rideOut brings the sink in line with the assignment it left.
          if (e.getCause() instanceof RuntimeException cause && StorageFailures.isOutage(cause) && !failed) {
            rideOut(cause);
            continue;
          }
          throw e;
        }
        try {
          if (handled(records)) {
            LOG.info("reached the end of {} partitions; stopping", assigned.size());
            return;
          }
        } catch (RuntimeException e) {
          rideOut(e);
        }
      }
      if (!failed) { // failed: stopped while riding out an outage, with the cycle dropped
        endCycle(true, true);
      }
    } catch (TableChannel.StopRequestedException e) {
      // Asked to stop while the writers were too busy to take the next batch: the cycle being
      // filled is not committed (a restart reads it again); a sealed one still lands on close().
      LOG.warn("stopped while waiting for the writers: the records of this cycle are not committed");
      failed = true;
    }
  }

  /**
   * Routes one poll's records and ends the cycle when due: whether the sink is to stop, with
   * everything up to the end of its partitions committed ({@code stopAtEnd}).
   */
  private boolean handled(ConsumerRecords<ByteBuffer, ByteBuffer> records) {
    if (landed(commits.poll(), false)) {
      return false; // fenced: these records were polled before the seek back and are read again
    }
    // The epoch of each position as the consumer keeps it (past transaction markers and aborted
    // batches too, which return no records); an empty fetch is reported without one, unmoved.
    records.nextOffsets().forEach((tp, next) -> {
      EpochAt known = positionEpochs.get(tp);
      if (next.leaderEpoch().isPresent() || known == null || known.offset() != next.offset()) {
        putOrRemove(positionEpochs, tp, next.offset(), next.leaderEpoch().orElse(null));
      }
    });
    route(records);
    if (commitDue()) {
      endCycle(!config.overlapCommits(), false);
    }
    if (config.stopAtEnd() && reachedEnd()) {
      endCycle(true, true);
      // Unless the last cycle was fenced: the partitions were sought back to what the tables
      // hold, and what those lack is read and committed again before the sink stops.
      return reachedEnd();
    }
    return false;
  }

  /**
   * After a cycle failed on an outage of the tables' storage or catalog ({@link OutageRetries}):
   * lets the cycle being committed land (or fail too), waits, then drops everything not committed
   * and resumes every partition from what the tables hold -- again after a longer wait if reading
   * them fails too. Fencing makes this safe even when a commit's outcome was unknown: if it lands
   * after all, the next commit finds the offsets moved and is fenced in turn. Any other failure,
   * or an outage past {@code storage.retry.timeout}, is thrown.
   */
  private void rideOut(RuntimeException failure) {
    RuntimeException last = failure;
    while (true) {
      long waitMs = outages.waitAfter(unwrapped(last));
      LOG.warn("a cycle failed on the tables' storage or catalog; dropping what is not committed, and reading it again"
          + " from the tables in {} ms (retry {} of this outage): {}", waitMs, outages.retries(), last.toString());
      metrics.outageRetried();
      try {
        try {
          landed(commits.await(), true);
        } catch (RuntimeException alsoFailed) {
          if (!StorageFailures.isOutage(alsoFailed)) {
            throw alsoFailed;
          }
        }
        waitOut(waitMs); // or less, when asked to stop
        if (stopping) {
          stopWithoutCycle();
          return;
        }
        // Partitions a rebalance took away or gave while a callback met the outage: forgotten,
        // or resumed from the tables, like the rest.
        Set<TopicPartition> current = consumer.assignment();
        List<TopicPartition> gone = assigned.stream().filter(tp -> !current.contains(tp)).toList();
        forget(gone);
        dropCycleAndResume();
        Set<TopicPartition> given = new HashSet<>(current);
        given.removeAll(assigned);
        if (!given.isEmpty()) {
          takeOver(given);
        }
        for (TableChannel channel : channels.values()) {
          channel.forgetFailure();
        }
        return;
      } catch (RuntimeException again) {
        if (stopping && (again instanceof WakeupException || StorageFailures.isOutage(again))) {
          stopWithoutCycle(); // stop() woke the consumer, or the outage goes on: the cycle is dropped
          return;
        }
        if (stopping || !StorageFailures.isOutage(again)) {
          again.addSuppressed(last);
          throw again;
        }
        last = again;
      }
    }
  }

  /**
   * Asked to stop while riding out an outage: the cycle is dropped, and nothing more is committed
   * (the consumer's positions may be past what the tables hold); a restart resumes from the tables.
   */
  private void stopWithoutCycle() {
    for (TableChannel channel : channels.values()) {
      channel.abortCycle();
      channel.forgetFailure();
    }
    failed = true;
    LOG.warn("stopped while waiting out an outage of the tables' storage or catalog: the records read since the last"
        + " commit are not committed; a restart reads them again");
  }

  /** Waits {@code millis}, or less if the sink is asked to stop. */
  private void waitOut(long millis) {
    long until = System.nanoTime() + millis * 1_000_000;
    while (System.nanoTime() < until && !stopping) {
      try {
        Thread.sleep(Math.min(100, Math.max(1, (until - System.nanoTime()) / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SinkException("interrupted while waiting out an outage of the tables' storage", e);
      }
    }
  }

  /**
   * Before consuming, where the consumer and the dead-letter producer would wait without a word:
   * fails at once naming a broker that does not answer within kafka.timeout, or a topic that does
   * not exist when the sink is to stop at the end of its topics; creates a missing dead-letter
   * topic with the cluster's defaults, as Kafka Connect does (each bad record would wait for it).
   * A missing topic of a sink that runs on is waited for, and said once.
   */
  private void checkKafka() {
    List<String> wanted = new ArrayList<>(config.topics());
    if (deadLetters != null) {
      wanted.add(config.deadLetterTopic());
    }
    Set<String> missing = topicIds.missing(wanted, config.kafkaTimeout(), config.bootstrapServers());
    if (deadLetters != null && missing.remove(config.deadLetterTopic())) {
      // as large a message as the sink's producer sends: with the cluster's default (about 1 MiB),
      // a larger bad record failed its dead letter, and the sink at every restart (helper-83)
      topicIds.create(config.deadLetterTopic(),
          Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(DeadLetters.MAX_REQUEST_BYTES)),
          config.kafkaTimeout());
      LOG.info("created the dead-letter topic {} with the cluster's defaults and max.message.bytes {}",
          config.deadLetterTopic(), DeadLetters.MAX_REQUEST_BYTES);
    }
    if (!missing.isEmpty() && config.stopAtEnd()) {
      throw new SinkException("topics " + missing + " do not exist at " + config.bootstrapServers()
          + ": a sink that stops at the end of its topics would wait for them", null);
    }
    if (!missing.isEmpty()) {
      LOG.warn("topics {} do not exist at {} yet; the sink waits for them", missing, config.bootstrapServers());
    }
  }

  /** Asks {@link #run()} to commit what it consumed and return. Thread-safe. */
  public void stop() {
    stopping = true;
    consumer.wakeup();
  }

  private void route(ConsumerRecords<ByteBuffer, ByteBuffer> records) {
    long bytes = 0;
    // Partition by partition: with topic routes the table is looked up once per partition.
    for (TopicPartition tp : records.partitions()) {
      TableChannel topicChannel = routeField == null ? channelForTopic(tp.topic()) : null;
      PartitionSource source = sources.computeIfAbsent(tp, PartitionSource::new);
      for (ConsumerRecord<ByteBuffer, ByteBuffer> r : records.records(tp)) {
        ByteBuffer value = r.value();
        bytes += value == null ? 0 : value.remaining();
        if (value == null && !tombstoneDeletes(r)) {
          continue;
        }
        if (routeField == null) {
          if (topicChannel == null) {
            badRecord(r, "no route for topic " + r.topic());
          } else {
            topicChannel.add(r, source);
          }
        } else if (!routeByField(r, source)) {
          writtenAfterTruncation.put(tp, new OffsetAndMetadata(r.offset(), r.leaderEpoch(), ""));
          break; // the partition is read again from this record
        }
      }
    }
    if (!writtenAfterTruncation.isEmpty()) {
      writtenAfterTruncation.forEach((tp, from) -> {
        LOG.error("partition {}: offset {} was written after its log was truncated under what a table holds (a later "
            + "leader epoch than the one stored); its offsets were reused. Records from {} on are read as new ones",
            tp, from.offset(), from.offset());
        metrics.offsetsReused();
      });
      Map<TopicPartition, Integer> writtenIn = new HashMap<>();
      writtenAfterTruncation.forEach((tp, from) -> from.leaderEpoch().ifPresent(epoch -> writtenIn.put(tp, epoch)));
      readAsNewFrom(new HashMap<>(writtenAfterTruncation), writtenIn);
      writtenAfterTruncation.clear();
    }
    int count = records.count();
    metrics.consumed(count, bytes);
    cycleRecords += count;
    cycleBytes += bytes;
  }

  /**
   * Whether a tombstone (a record with a null value) goes on to its table, whose row for the
   * record's key it deletes: in upsert mode, with a key and no route field to read. In append mode
   * it is skipped and counted (nothing to append), as Iceberg's and floe's Connect sinks skip it;
   * otherwise it is a bad record.
   */
  private boolean tombstoneDeletes(ConsumerRecord<ByteBuffer, ByteBuffer> r) {
    if (!config.upsert()) {
      metrics.tombstoneSkipped();
      if (!warnedTombstones) {
        warnedTombstones = true;
        LOG.info("skipping records with a null value (tombstones) in append mode, first at topic {}, partition {}, "
            + "offset {}; the TombstonesSkipped metric counts them", r.topic(), r.partition(), r.offset());
      }
      return false;
    }
    if (r.key() == null) {
      badRecord(r, "a tombstone (null value) without a key: nothing says which row to delete");
      return false;
    }
    if (routeField != null) {
      badRecord(r, "a tombstone (null value) has no route field '" + config.routeField() + "' to route it by");
      return false;
    }
    return true;
  }

  private TableChannel channelForTopic(String topic) {
    TableChannel cached = byTopic.get(topic);
    if (cached != null) {
      return cached;
    }
    for (TableRoute route : config.routes()) {
      if (route.matchesTopic(topic)) {
        TableChannel channel = channels.get(route.table());
        byTopic.put(topic, channel);
        return channel;
      }
    }
    return null;
  }

  /**
   * With a route field: the first route matching the record's topic and field value; a record
   * under the floor of its table (re-read for another table) is skipped -- unless it was written in
   * a later leader epoch than the record before the floor: then the log was truncated under the
   * floor while the sink did not read it (only the position it resumed from was checked), and the
   * record is new.
   *
   * @return false for such a record (not routed): the partition must be read as new from it
   */
  private boolean routeByField(ConsumerRecord<ByteBuffer, ByteBuffer> r, PartitionSource source) {
    String value;
    try {
      value = routeField.read(r.value()); // tombstones never get here (tombstoneDeletes)
    } catch (RouteField.MalformedValueException e) {
      badRecord(r, "bad route field: " + e.getMessage());
      return true;
    }
    for (TableRoute route : config.routes()) {
      if (route.matchesTopic(r.topic()) && route.matchesValue(value)) {
        TableChannel channel = channels.get(route.table());
        Long floor = channel.held().floor(source.partition());
        if (floor == null || r.offset() >= floor) {
          channel.add(r, source);
          return true;
        }
        Integer floorEpoch = channel.held().floorEpoch(source.partition());
        return floorEpoch == null || r.leaderEpoch().isEmpty() || r.leaderEpoch().get() <= floorEpoch;
      }
    }
    badRecord(r, "no route for field '" + config.routeField() + "' value "
        + (value == null ? "(absent, or not a string)" : ShownText.quoted(value)));
    return true;
  }

  /** A record that reaches no table: stops, is skipped or is dead-lettered, per the policy. */
  private void badRecord(ConsumerRecord<ByteBuffer, ByteBuffer> r, String reason) {
    String source = "topic " + r.topic() + ", partition " + r.partition() + ", offset " + r.offset();
    switch (config.badRecords()) {
      case FAIL -> throw new SinkException("bad record at " + source + ": " + reason, null);
      case SKIP -> {
        metrics.badRecord();
        if (metrics.badRecords() <= 10) {
          LOG.warn("skipped bad record at {}: {}", source, reason);
        }
      }
      case DEAD_LETTER -> {
        metrics.badRecord();
        deadLetters.send(RecordOrigins.deadLetter(r, reason));
        metrics.deadLettered();
      }
    }
  }

  private boolean commitDue() {
    return cycleRecords >= config.commitRecords()
        || cycleBytes >= config.commitBytes()
        || System.nanoTime() - cycleStarted >= config.commitInterval().toNanos();
  }

  private boolean reachedEnd() {
    if (assigned.isEmpty() || endOffsets == null) {
      return false;
    }
    for (TopicPartition tp : assigned) {
      Long end = endOffsets.get(tp);
      if (end != null && position(tp) < end) {
        return false;
      }
    }
    return true;
  }

  /**
   * Ends the commit cycle: every table's files are sealed at the consumed positions and handed to
   * the commit stage, once the cycle before has landed. The next cycle starts filling at once;
   * with {@code wait}, this returns only when the cycle has landed too. The {@code last} cycle
   * before the sink stops or gives partitions away also stores the offsets reached in tables that
   * got no files ({@code idle.commit.cycles}).
   */
  private void endCycle(boolean wait, boolean last) {
    if (cycleRecords == 0 && !last && !commits.busy()) {
      // a whole cycle, due by its interval, without a record or a failure (a resume starts a new
      // cycle), and no commit before it still running or failed and not yet taken (helper-76: with
      // overlapping commits, a quiet cycle restarted the clock while the commit that was to fail
      // hung in its client's retries); not the last one of a rebalance or a stop
      outages.nothingToRedo();
    }
    Map<TopicPartition, Long> positions = new HashMap<>();
    for (TopicPartition tp : assigned) {
      positions.put(tp, position(tp));
    }
    List<CommitStage.TableCut> tables = new ArrayList<>();
    for (TableChannel channel : channels.values()) {
      tables.add(new CommitStage.TableCut(channel, channel.seal(), offsetsFor(channel, positions)));
    }
    CommitStage.Sealed cycle = new CommitStage.Sealed(tables, positions, cycleRecords, System.nanoTime(), last);
    cycleRecords = 0;
    cycleBytes = 0;
    cycleStarted = System.nanoTime();
    landed(commits.submit(cycle), false);
    if (wait) {
      landed(commits.await(), true);
    }
  }

  /**
   * On the consumer thread, after a cycle landed in its tables: the group offsets follow
   * (asynchronously unless {@code sync}), then the metrics and the log line. After a fenced cycle:
   * everything not committed is dropped and the partitions resume from the tables.
   *
   * @return whether the cycle was fenced: the partitions were sought back, so records polled
   *     before this call must not be routed (they are read again)
   */
  private boolean landed(CommitStage.Committed cycle, boolean sync) {
    if (cycle == null) {
      return false;
    }
    if (cycle.fence() != null) {
      resumeAfterFence();
      return true;
    }
    if (!cycle.positions().isEmpty()) {
      commitGroupOffsets(cycle.positions(), sync);
    }
    if (cycle.tables() > 0) {
      outages.landed(); // a commit went through: the tables' storage and catalog work again
    }
    if (cycle.files() > 0) {
      metrics.committed(cycle.files(), cycle.bytes(), cycle.millis());
      updateLag(cycle.positions());
      LOG.info(
          "committed {} records in {} files ({} MiB) in {} ms; {} records/s, {} MiB/s overall; lag {}; bad records {}",
          cycle.records(), cycle.files(), cycle.bytes() >> 20, cycle.millis(), (long) metrics.getRecordsPerSecond(),
          String.format("%.1f", metrics.getBytesPerSecond() / (1 << 20)), metrics.getLag(), metrics.getBadRecords());
    }
    return false;
  }

  /**
   * The positions this table's commit stores: those of the partitions whose records can reach it,
   * with their topic ids. With a route field, a partition re-read from below what the table holds
   * (for another table's sake) keeps the table's own offset: a table's offsets never move back
   * because of another table.
   */
  private Map<TopicPartition, Position> offsetsFor(TableChannel channel, Map<TopicPartition, Long> positions) {
    Map<TopicPartition, Position> out = new HashMap<>();
    positions.forEach((tp, offset) -> {
      if (feeds(channel, tp)) {
        Long floor = routeField == null ? null : channel.held().floor(tp);
        long next = floor == null ? offset : Math.max(offset, floor);
        // The epoch belongs to the offset stored: the position's, or the table's own higher one's.
        Integer epoch = next != offset ? channel.held().floorEpoch(tp) : positionEpoch(tp, offset);
        out.put(tp, new Position(next, readUnder.getOrDefault(tp, topicIds.get(tp.topic())), epoch));
      }
    });
    return out;
  }

  /** Whether records of {@code tp} can reach {@code channel}'s table. */
  private boolean feeds(TableChannel channel, TopicPartition tp) {
    return routeField != null || channelForTopic(tp.topic()) == channel;
  }

  private void commitGroupOffsets(Map<TopicPartition, Long> positions, boolean sync) {
    Map<TopicPartition, OffsetAndMetadata> hint = new HashMap<>();
    positions.forEach((tp, o) -> {
      if (assigned.contains(tp)) {
        hint.put(tp, new OffsetAndMetadata(o));
      }
    });
    if (hint.isEmpty()) {
      return;
    }
    // The tables hold the offsets that count; these only for a table that stored none (resume).
    try {
      if (sync) {
        // Bounded: a topic deleted meanwhile would hold the commit, and every sink of the group
        // waiting on this rebalance, for default.api.timeout.ms (60 s).
        consumer.commitSync(hint, GROUP_COMMIT_TIMEOUT);
      } else {
        consumer.commitAsync(hint, (offsets, e) -> {
          if (e != null) {
            LOG.warn("could not commit group offsets (the tables have them): {}", e.getMessage());
          }
        });
      }
    } catch (RuntimeException e) {
      LOG.warn("could not commit group offsets (the tables have them): {}", e.getMessage());
    }
  }

  /** Records behind the end of each partition, as of the last fetch (no request to the broker). */
  private void updateLag(Map<TopicPartition, Long> positions) {
    long lag = 0;
    for (TopicPartition tp : positions.keySet()) {
      if (assigned.contains(tp)) {
        OptionalLong behind = consumer.currentLag(tp);
        lag += behind.isPresent() ? behind.getAsLong() : 0;
      }
    }
    metrics.lag(lag);
  }

  /** Partitions come and go: resume new ones from the tables, commit before giving any away. */
  private final class Listener implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      if (!partitions.isEmpty() && !failed && !closing) {
        endCycle(true, true);
      }
      // After a failure a cycle sealed before it may still be committing (it lands as the sink
      // closes), and its commit checks the offsets the tables were last seen to hold: kept.
      forget(partitions, !failed);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      if (closing) {
        forget(partitions); // the consumer of KIP-848 may report them lost as it closes
        return;
      }
      // Another sink may own them already: drop the cycle's files and re-read what we still own.
      LOG.warn("lost partitions {}; discarding this cycle's uncommitted files", partitions);
      // A sealed cycle still commits (or is fenced); no group offsets for what we lost.
      CommitStage.Committed sealed = commits.await();
      assigned.removeAll(partitions);
      if (sealed != null && sealed.fence() == null) {
        landed(sealed, false);
      } else if (sealed != null) {
        metrics.fenced(); // dropped with the rest below (helper-69: such fences went uncounted)
        LOG.warn("a commit was fenced: {}", sealed.fence().getMessage());
      }
      forget(partitions);
      dropCycleAndResume();
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> assignedNow) {
      Set<TopicPartition> partitions = new HashSet<>(assignedNow);
      // resumed already if polled before this callback ran (positionsNotSought): their records
      // since are in the cycle, and seeking them again would read those twice
      partitions.removeAll(assigned);
      if (!partitions.isEmpty()) { // empty: a cooperative rebalance kept what this sink holds
        takeOver(partitions);
      }
    }
  }

  /** A commit was fenced: another sink wrote these partitions' offsets. Re-read from the tables. */
  private void resumeAfterFence() {
    metrics.fenced();
    LOG.warn("a commit was fenced: dropping this cycle and resuming {} partitions from the tables", assigned.size());
    dropCycleAndResume();
  }

  /** Drops everything consumed and not committed, and seeks every partition to what the tables hold. */
  private void dropCycleAndResume() {
    writtenAfterTruncation.clear(); // of records dropped too: read again, they are found again
    for (TableChannel channel : channels.values()) {
      channel.abortCycle();
    }
    resume(new ArrayList<>(assigned));
    cycleRecords = 0;
    cycleBytes = 0;
    cycleStarted = System.nanoTime();
  }

  private void forget(Collection<TopicPartition> partitions) {
    forget(partitions, true);
  }

  /** Forgets the partitions; with {@code stored}, also the offsets their tables were seen to hold. */
  private void forget(Collection<TopicPartition> partitions, boolean stored) {
    assigned.removeAll(partitions);
    partitions.forEach(readUnder::remove);
    partitions.forEach(positionEpochs::remove);
    if (stored) {
      for (TableChannel channel : channels.values()) {
        channel.held().forget(partitions);
      }
    }
  }

  /**
   * Seeks each partition to the lowest offset a table it feeds still needs: the offset the table
   * stored for it or, for a table that stored none, the group's committed offset (committed only
   * once every table of a cycle holds its records) or, without one, the beginning. A topic
   * recreated since a table stored its offsets (its id differs) counts as never stored by any, and
   * is read from the beginning.
   */
  private void resume(Collection<TopicPartition> partitions) {
    if (partitions.isEmpty()) {
      return;
    }
    Map<String, String> ids = topicIds.refresh(partitions.stream().map(TopicPartition::topic).distinct().toList());
    partitions.forEach(tp -> readUnder.put(tp, ids.get(tp.topic())));
    Map<TopicPartition, Long> lowest = new HashMap<>();
    Map<TopicPartition, Integer> lowestEpochs = new HashMap<>(); // the epoch stored with the lowest, if any
    Set<TopicPartition> unstored = new HashSet<>(); // no table feeds it, or one stored none
    Set<TopicPartition> recreated = new HashSet<>();
    Map<TopicPartition, List<Position>> stored = new HashMap<>();
    for (TopicPartition tp : partitions) {
      if (channels.values().stream().noneMatch(channel -> feeds(channel, tp))) {
        unstored.add(tp);
      }
    }
    for (TableChannel channel : channels.values()) {
      List<TopicPartition> fed = partitions.stream().filter(tp -> feeds(channel, tp)).toList();
      channel.table().refresh();
      Map<TopicPartition, Position> found =
          SnapshotOffsets.latest(((HasTableOperations) channel.table()).operations().current(), config.group(), fed);
      Map<TopicPartition, Long> floors = new HashMap<>();
      for (TopicPartition tp : fed) {
        Position p = found.get(tp);
        if (p != null && !p.sameTopic(ids.get(tp.topic()))) {
          recreated.add(tp);
        } else if (p != null) {
          floors.put(tp, p.next());
          stored.computeIfAbsent(tp, k -> new ArrayList<>()).add(p);
          Long before = lowest.get(tp);
          if (before == null || p.next() < before) {
            lowest.put(tp, p.next());
            lowestEpochs.put(tp, p.leaderEpoch()); // null: none stored
          } else if (p.next() == before && p.leaderEpoch() != null) {
            lowestEpochs.put(tp, p.leaderEpoch());
          }
          continue;
        }
        unstored.add(tp);
      }
      channel.held().load(fed, found, floors);
    }
    logRecreated(recreated, ids);
    Map<TopicPartition, OffsetAndMetadata> groupOffsets = new HashMap<>();
    Set<TopicPartition> askGroup = new HashSet<>(unstored);
    askGroup.removeAll(recreated);
    if (!askGroup.isEmpty()) {
      consumer.committed(askGroup).forEach((tp, o) -> {
        if (o != null) {
          groupOffsets.put(tp, o);
        }
      });
      if (!groupOffsets.isEmpty()) {
        // a warning: on a new table, the records before these offsets are never written (helper-79 found
        // the README's "said in the log" hidden at the command line's log level)
        LOG.warn("partitions a table holds no offsets for resume from group {}'s committed offsets, so what comes"
            + " before them is not written to it (a new group reads the partitions from the start): {}", config.group(),
            groupOffsets.entrySet().stream()
                .map(e -> e.getKey() + "@" + e.getValue().offset()).sorted().toList());
      }
    }
    List<TopicPartition> fromBeginning = new ArrayList<>();
    Map<TopicPartition, Long> seeks = new HashMap<>();
    for (TopicPartition tp : partitions) {
      Long offset = lowest.get(tp);
      Integer epoch = lowestEpochs.get(tp);
      if (recreated.contains(tp)) {
        offset = null;
      } else if (unstored.contains(tp)) {
        OffsetAndMetadata group = groupOffsets.get(tp);
        if (group != null && (offset == null || group.offset() < offset)) {
          offset = group.offset();
          epoch = group.leaderEpoch().orElse(null);
        }
        if (group == null) {
          offset = null;
        }
      }
      if (offset == null) {
        fromBeginning.add(tp);
        positionEpochs.remove(tp);
      } else {
        // With the epoch, the consumer has the broker check the log still holds the record
        // before the offset: if it was truncated meanwhile, poll says where it diverged.
        consumer.seek(tp, new OffsetAndMetadata(offset, Optional.ofNullable(epoch), ""));
        putOrRemove(positionEpochs, tp, offset, epoch);
        seeks.put(tp, offset);
      }
    }
    if (!fromBeginning.isEmpty()) {
      consumer.seekToBeginning(fromBeginning);
    }
    LOG.info("resuming {} partitions at offsets {}; from the beginning: {}", partitions.size(), seeks, fromBeginning);
    seeks.forEach((tp, offset) -> {
      if (!unstored.contains(tp)) {
        Position older = storedInOlderEpoch(stored.get(tp), offset, lowestEpochs.get(tp));
        if (older != null) {
          checkOlderEpoch(tp, older, offset, lowestEpochs.get(tp));
        }
      }
    });
  }

  /**
   * Of the positions the tables store for a partition, one above the offset sought but in an
   * older leader epoch than the one stored with it (the oldest such; null if none). In one log,
   * epochs never fall as offsets rise: that table's offset belongs to a log truncated since.
   */
  private static Position storedInOlderEpoch(List<Position> stored, long sought, Integer soughtEpoch) {
    if (stored == null || soughtEpoch == null) {
      return null;
    }
    Position oldest = null;
    for (Position p : stored) {
      if (p.next() > sought && p.leaderEpoch() != null && p.leaderEpoch() < soughtEpoch
          && (oldest == null || p.leaderEpoch() < oldest.leaderEpoch())) {
        oldest = p;
      }
    }
    return oldest;
  }

  /**
   * A table that holds an offset of a truncated log above another table's offset in the new log:
   * e.g. the commit that moved the offsets back after the truncation landed for one table and
   * failed for this one. The broker checks only the position sought, and the lower offset passes,
   * so this table's new records below it would never be read. Its position is checked first: where
   * the log diverged from it, its records are read as new ones ({@link #truncated}); if the log
   * still holds it after all, the partition is read from the lowest offset, as without the check.
   */
  private void checkOlderEpoch(TopicPartition tp, Position older, long lowest, Integer lowestEpoch) {
    consumer.seek(tp, new OffsetAndMetadata(older.next(), Optional.of(older.leaderEpoch()), ""));
    putOrRemove(positionEpochs, tp, older.next(), older.leaderEpoch());
    if (position(tp) == older.next()) {
      consumer.seek(tp, new OffsetAndMetadata(lowest, Optional.ofNullable(lowestEpoch), ""));
      putOrRemove(positionEpochs, tp, lowest, lowestEpoch);
    }
  }

  private void putOrRemove(Map<TopicPartition, EpochAt> epochs, TopicPartition tp, long offset, Integer epoch) {
    if (epoch == null) {
      epochs.remove(tp);
    } else {
      epochs.put(tp, new EpochAt(offset, epoch));
    }
  }

  /** The epoch known for {@code tp}'s position when that is {@code offset}; null otherwise. */
  private Integer positionEpoch(TopicPartition tp, long offset) {
    EpochAt at = positionEpochs.get(tp);
    return at != null && at.offset() == offset ? at.epoch() : null;
  }

  private static void logRecreated(Set<TopicPartition> recreated, Map<String, String> ids) {
    recreated.stream().map(TopicPartition::topic).distinct().forEach(topic -> LOG.warn(
        "topic {} was recreated (its id is now {}): the offsets the tables hold for the old topic are ignored, "
            + "and the new one is read from the beginning", topic, ids.get(topic)));
  }

  /**
   * Positions out of range: records deleted by retention before the sink read them (read on from
   * the log start), or offsets reused -- the tables hold offsets past the log's end, e.g. after the
   * log was truncated. Then the records from the end on are new ({@link #readAsNewFrom}).
   */
  private void outOfRange(Map<TopicPartition, Long> positions) {
    Map<TopicPartition, Long> first = consumer.beginningOffsets(positions.keySet());
    Map<TopicPartition, Long> end = consumer.endOffsets(positions.keySet());
    Map<TopicPartition, OffsetAndMetadata> reused = new HashMap<>();
    positions.forEach((tp, position) -> {
      if (position < first.get(tp)) {
        LOG.warn("partition {}: records {} to {} were deleted before the sink read them; reading on from {}",
            tp, position, first.get(tp) - 1, first.get(tp));
        consumer.seek(tp, first.get(tp));
      } else {
        long last = end.get(tp);
        LOG.error("partition {}: the tables hold it up to offset {} but its log ends at {}: its offsets were reused. "
            + "Records from {} on are read as new ones", tp, position, last, last);
        metrics.offsetsReused();
        reused.put(tp, new OffsetAndMetadata(last));
      }
      positionEpochs.remove(tp);
    });
    readAsNewFrom(reused, Map.of());
  }

  /**
   * The consumer looked for positions of partitions assigned to it before the sink had sought
   * them. KIP-848's consumer (group.protocol = consumer) can do so before it runs the assignment
   * callback; with no automatic reset it then fails the poll. They are resumed from the tables here
   * as the callback does (which seeks them again when it runs).
   */
  private void positionsNotSought(NoOffsetForPartitionException e) {
    Set<TopicPartition> fresh = new HashSet<>(e.partitions());
    fresh.removeAll(assigned);
    if (fresh.size() < e.partitions().size() || !consumer.assignment().containsAll(fresh)) {
      throw e; // sought already, or not assigned: not that race
    }
    LOG.info("partitions {} were polled before their assignment was handled; resuming them from the tables", fresh);
    takeOver(fresh);
  }

  /**
   * Resumes newly assigned partitions from the tables and takes them into the cycle. Assigned
   * (its position stored at the next commit) only once sought to what the tables hold: a stop()
   * waking the consumer in between would have the closing commit store the position the consumer
   * took from the group's offset, which may lie below the tables'.
   */
  private void takeOver(Set<TopicPartition> partitions) {
    landed(commits.await(), true); // resuming reads the offsets the tables hold
    resume(partitions);
    assigned.addAll(partitions);
    if (config.stopAtEnd()) {
      endOffsets = new HashMap<>(consumer.endOffsets(assigned));
    }
  }

  /**
   * The consumer's position of {@code tp}. A partition sought with its leader epoch is validated
   * first, and a truncation found then ({@link #truncated}) is handled here, not only in poll.
   */
  private long position(TopicPartition tp) {
    while (true) {
      try {
        return consumer.position(tp);
      } catch (LogTruncationException e) {
        truncated(e);
      }
    }
  }

  /**
   * Positions sought with their leader epochs (resumed from the tables) whose logs were truncated
   * under them and grew again, e.g. after an unclean leader election while the sink was down: the
   * broker says where each log diverged, and the records from there on are new, though the
   * position is inside the log. Without the epoch check they would have been skipped.
   */
  private void truncated(LogTruncationException e) {
    Map<TopicPartition, OffsetAndMetadata> divergent = e.divergentOffsets();
    divergent.forEach((tp, from) -> {
      LOG.error("partition {}: its log was truncated at offset {} under the offsets the tables hold, and its offsets "
          + "were reused. Records from {} on are read as new ones", tp, from.offset(), from.offset());
      metrics.offsetsReused();
    });
    e.offsetOutOfRangePartitions().forEach((tp, position) -> {
      if (!divergent.containsKey(tp)) {
        // The broker could not say where: read on from the position without the check, as a sink
        // that stored no epoch would.
        LOG.error("partition {}: its log was truncated under offset {}, but the broker could not say where; reading on "
            + "from {}: records at reused offsets below it are not read", tp, position, position);
        consumer.seek(tp, position);
        positionEpochs.remove(tp);
      }
    });
    // A table whose offset was stored in a later epoch than both the last one the logs share and
    // the one the position was sought with holds records of the log as it is now (it took some
    // after the truncation; a quiet table did not, and its old epoch is what is found diverging
    // again at every resume until it is committed). Epochs between those two were the lost log's.
    Map<TopicPartition, Integer> afterDivergence = new HashMap<>();
    divergent.forEach((tp, from) -> from.leaderEpoch().ifPresent(shared -> {
      EpochAt sought = positionEpochs.get(tp);
      afterDivergence.put(tp, Math.max(shared, sought == null ? shared : sought.epoch()) + 1);
    }));
    readAsNewFrom(divergent, afterDivergence);
  }

  /**
   * The records of each partition from its offset on are new ones at reused offsets: every
   * table's floor drops to it, and the offsets the tables store move back to it (logged again at
   * the commit). A commit in flight is awaited first: sealed before the truncation was found, it
   * would raise the floors back when it lands, and the new records under its offsets would be
   * skipped. A table whose offset was stored in the epoch {@code keptFrom} gives for its partition
   * or later keeps it: it holds the new records up to it (one table of a cycle landed, another did
   * not; or only some tables took records since the truncation).
   */
  private void readAsNewFrom(Map<TopicPartition, OffsetAndMetadata> reused, Map<TopicPartition, Integer> keptFrom) {
    if (reused.isEmpty() || landed(commits.await(), true)) {
      return; // fenced: every partition was sought back to what the tables hold; a poll finds it again
    }
    reused.forEach((tp, from) -> {
      for (TableChannel channel : channels.values()) {
        Integer stored = channel.held().floorEpoch(tp);
        Integer newFrom = keptFrom.get(tp);
        if (stored != null && newFrom != null && stored >= newFrom) {
          continue; // its offset was stored in the new records' epoch or later: it holds them up to there already
        }
        channel.held().lowerFloor(tp, from.offset());
      }
      consumer.seek(tp, from);
      putOrRemove(positionEpochs, tp, from.offset(), from.leaderEpoch().orElse(null));
    });
  }

  /**
   * Stops without committing the cycle being filled: its files are deleted. A cycle already
   * sealed (complete, waiting for its commit) still lands. Call it on the thread that ran {@link
   * #run()}, or after {@code run()} returned ({@link #stop()} ends it): Kafka's consumer refuses
   * to be closed from another thread while it polls.
   */
  @Override
  public void close() {
    closing = true;
    if (commits != null) { // null only when the constructor failed part way
      commits.close();
    }
    for (TableChannel channel : channels.values()) {
      channel.close();
    }
    pool.close();
    if (deadLetters != null) {
      deadLetters.close();
    }
    if (topicIds != null) {
      topicIds.close();
    }
    if (consumer != null) {
      consumer.close();
    }
    metrics.unregister();
    allocator.close();
  }
}
