package dev.floe.iceberg.sink;

import dev.floe.arrow.RejectedMessage;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Semaphore;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
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
 * offsets are committed afterwards, only as a hint. A commit whose table offsets moved under it fails with
 * {@link FencedException} instead of writing twice.
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

  private final SinkConfig config;
  private final BufferAllocator allocator = new RootAllocator();
  private final SinkMetrics metrics = new SinkMetrics();
  private final Semaphore inFlight;
  private final Map<TableIdentifier, TableChannel> channels = new LinkedHashMap<>();
  private final Map<String, TableChannel> byTopic = new HashMap<>();
  private final RouteField routeField;
  private final DeadLetters deadLetters;
  private final CommitStage commits;
  // Values arrive as views of the fetched bytes (no per-record byte[]): copied once, into a batch.
  private final KafkaConsumer<ByteBuffer, ByteBuffer> consumer;
  private final Set<TopicPartition> assigned = new HashSet<>();
  private Map<TopicPartition, Long> endOffsets;
  private long cycleRecords;
  private long cycleBytes;
  private long cycleStarted = System.nanoTime();
  private volatile boolean stopping;
  /** Set when run() fails: nothing more may be committed from this cycle. */
  private boolean failed;

  public KafkaIcebergSink(SinkConfig config) {
    this.config = config;
    this.inFlight = new Semaphore((int) Math.min(Integer.MAX_VALUE, config.maxInFlightBytes()));
    this.routeField = config.routeField() == null ? null : new RouteField(config.routeField());
    this.deadLetters =
        config.badRecords() == BadRecordMode.DEAD_LETTER
            ? new DeadLetters(config.deadLetterTopic(), config.bootstrapServers(), config.consumerProperties())
            : null;
    this.commits = new CommitStage(new TableCommitter(config.group()), deadLetters, config.group());
    // Deserializer instances win over any deserializer the consumer properties name.
    this.consumer =
        new KafkaConsumer<>(consumerConfig(config), new ByteBufferDeserializer(), new ByteBufferDeserializer());
    try {
      for (TableRoute route : config.routes()) {
        channels.computeIfAbsent(route.table(), id -> new TableChannel(
            id, loadOrCreate(id), config, allocator, inFlight, deadLetters, metrics));
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    metrics.register(config.group());
  }

  private static Map<String, Object> consumerConfig(SinkConfig config) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, config.group());
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // A poll never takes more than a commit cycle's worth of records.
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, (int) Math.max(1, Math.min(10_000, config.commitRecords())));
    c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
    c.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 << 20);
    c.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 1 << 20);
    c.putAll(config.consumerProperties());
    return c;
  }

  private Table loadOrCreate(TableIdentifier id) {
    try {
      return config.catalog().loadTable(id);
    } catch (NoSuchTableException missing) {
      if (config.createSchema() == null) {
        throw new SinkException("table " + id + " does not exist and no schema was given to create it", missing);
      }
      try {
        return config.catalog().createTable(id, config.createSchema(), config.createSpec(), config.createProperties());
      } catch (AlreadyExistsException raced) {
        return config.catalog().loadTable(id); // another sink created it first
      }
    }
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
   * @throws SinkException on a bad record under FAIL, a write failure, or fencing; nothing
   *     uncommitted is kept, and a restart resumes from the tables' offsets
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
    } catch (KafkaException e) {
      // A failure inside a rebalance callback (a commit on revocation) reaches us wrapped.
      failed = true;
      throw e.getCause() instanceof RuntimeException cause && isSinkFailure(cause) ? cause : e;
    } catch (RuntimeException | Error e) {
      failed = true;
      throw e;
    } finally {
      consumer.unsubscribe(); // with `failed` set, revocation commits nothing
    }
  }

  private static boolean isSinkFailure(RuntimeException e) {
    return e instanceof SinkException || e instanceof FencedException;
  }

  private void consume() {
    while (!stopping) {
      ConsumerRecords<ByteBuffer, ByteBuffer> records;
      try {
        records = consumer.poll(Duration.ofMillis(200));
      } catch (WakeupException e) {
        continue; // stop() woke the poll
      }
      landed(commits.poll(), false);
      route(records);
      if (commitDue()) {
        endCycle(!config.overlapCommits());
      }
      if (config.stopAtEnd() && reachedEnd()) {
        endCycle(true);
        LOG.info("reached the end of {} partitions; stopping", assigned.size());
        return;
      }
    }
    endCycle(true);
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
      for (ConsumerRecord<ByteBuffer, ByteBuffer> r : records.records(tp)) {
        ByteBuffer value = r.value();
        bytes += value == null ? 0 : value.remaining();
        TableChannel channel = routeField == null ? topicChannel : channelFor(r);
        if (channel == null) {
          unroutable(r);
        } else if (routeField == null || !alreadyStored(channel, r)) {
          channel.add(value, r.topic(), r.partition(), r.offset());
        }
      }
    }
    int count = records.count();
    metrics.consumed(count, bytes);
    cycleRecords += count;
    cycleBytes += bytes;
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

  /** With a route field: the first route matching the record's topic and field value. */
  private TableChannel channelFor(ConsumerRecord<ByteBuffer, ByteBuffer> r) {
    String value = r.value() == null ? null : routeField.read(r.value());
    for (TableRoute route : config.routes()) {
      if (route.matchesTopic(r.topic()) && route.matchesValue(value)) {
        return channels.get(route.table());
      }
    }
    return null;
  }

  /** With a route field, a partition is read from the lowest offset any table needs. */
  private static boolean alreadyStored(TableChannel channel, ConsumerRecord<ByteBuffer, ByteBuffer> r) {
    Long stored = channel.stored().get(new TopicPartition(r.topic(), r.partition()));
    return stored != null && r.offset() < stored;
  }

  private void unroutable(ConsumerRecord<ByteBuffer, ByteBuffer> r) {
    String reason =
        routeField == null
            ? "no route for topic " + r.topic()
            : "no route for field '" + config.routeField() + "' value "
                + (r.value() == null ? "(null message)" : "'" + routeField.read(r.value()) + "'");
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
        deadLetters.send(new RejectedMessage(-1, source, reason,
            copyOf(r.value()), r.topic(), r.partition(), r.offset()));
        metrics.deadLettered();
      }
    }
  }

  /** The value's bytes, for the rare record that leaves the fast path; the buffer is left as it was. */
  private static byte[] copyOf(ByteBuffer value) {
    if (value == null) {
      return new byte[0];
    }
    byte[] out = new byte[value.remaining()];
    value.get(value.position(), out);
    return out;
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
      if (end != null && consumer.position(tp) < end) {
        return false;
      }
    }
    return true;
  }

  /**
   * Ends the commit cycle: every table's files are sealed at the consumed positions and handed to
   * the commit stage, once the cycle before has landed. The next cycle starts filling at once;
   * with {@code wait}, this returns only when the cycle has landed too.
   */
  private void endCycle(boolean wait) {
    Map<TopicPartition, Long> positions = new HashMap<>();
    for (TopicPartition tp : assigned) {
      positions.put(tp, consumer.position(tp));
    }
    List<CommitStage.TableCut> tables = new ArrayList<>();
    for (TableChannel channel : channels.values()) {
      tables.add(new CommitStage.TableCut(channel, channel.seal(), offsetsFor(channel, positions)));
    }
    CommitStage.Sealed cycle = new CommitStage.Sealed(tables, positions, cycleRecords, System.nanoTime());
    cycleRecords = 0;
    cycleBytes = 0;
    cycleStarted = System.nanoTime();
    landed(commits.submit(cycle), false);
    if (wait) {
      landed(commits.await(), true);
    }
  }

  /**
   * On the consumer thread, after a cycle landed in its tables: the group offsets follow (a hint,
   * asynchronously unless {@code sync}), then the metrics and the log line.
   */
  private void landed(CommitStage.Committed cycle, boolean sync) {
    if (cycle == null) {
      return;
    }
    if (!cycle.positions().isEmpty()) {
      commitGroupOffsets(cycle.positions(), sync);
    }
    if (cycle.files() > 0) {
      metrics.committed(cycle.files(), cycle.bytes(), cycle.millis());
      updateLag(cycle.positions());
      LOG.info(
          "committed {} records in {} files ({} MiB) in {} ms; {} records/s, {} MiB/s overall; lag {}; bad records {}",
          cycle.records(), cycle.files(), cycle.bytes() >> 20, cycle.millis(), (long) metrics.getRecordsPerSecond(),
          String.format("%.1f", metrics.getBytesPerSecond() / (1 << 20)), metrics.getLag(), metrics.getBadRecords());
    }
  }

  /** The positions of the partitions whose records can reach this table. */
  private Map<TopicPartition, Long> offsetsFor(TableChannel channel, Map<TopicPartition, Long> positions) {
    Map<TopicPartition, Long> out = new HashMap<>();
    positions.forEach((tp, offset) -> {
      if (routeField != null || channelForTopic(tp.topic()) == channel) {
        out.put(tp, offset);
      }
    });
    return out;
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
    // Only a hint: the tables hold the offsets that count.
    try {
      if (sync) {
        consumer.commitSync(hint);
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
      if (!partitions.isEmpty() && !failed) {
        endCycle(true);
      }
      forget(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      // Another sink may own them already: drop the cycle's files and re-read what we still own.
      LOG.warn("lost partitions {}; discarding this cycle's uncommitted files", partitions);
      // A sealed cycle still commits (or is fenced); no group offsets for what we lost.
      CommitStage.Committed sealed = commits.await();
      assigned.removeAll(partitions);
      landed(sealed, false);
      for (TableChannel channel : channels.values()) {
        channel.abortCycle();
      }
      forget(partitions);
      resume(new ArrayList<>(assigned));
      cycleRecords = 0;
      cycleBytes = 0;
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      landed(commits.await(), true); // resuming reads the offsets the tables hold
      assigned.addAll(partitions);
      resume(partitions);
      if (config.stopAtEnd()) {
        endOffsets = new HashMap<>(consumer.endOffsets(assigned));
      }
    }
  }

  private void forget(Collection<TopicPartition> partitions) {
    assigned.removeAll(partitions);
    for (TableChannel channel : channels.values()) {
      channel.stored().keySet().removeAll(partitions);
    }
  }

  /** Seeks each partition to the lowest offset stored for it by a table it feeds. */
  private void resume(Collection<TopicPartition> partitions) {
    Map<TopicPartition, Long> lowest = new HashMap<>();
    for (TableChannel channel : channels.values()) {
      channel.table().refresh();
      Map<TopicPartition, Long> stored =
          SnapshotOffsets.latest(
              ((org.apache.iceberg.HasTableOperations) channel.table()).operations().current(),
              config.group(),
              partitions);
      channel.stored().keySet().removeAll(partitions);
      channel.stored().putAll(stored);
      stored.forEach((tp, offset) -> lowest.merge(tp, offset, Math::min));
    }
    for (TopicPartition tp : partitions) {
      Long offset = lowest.get(tp);
      if (offset != null) {
        consumer.seek(tp, offset);
      } else {
        // Never committed to a table: the group's committed offset (a hint) or the earliest.
        OffsetAndMetadata committed = consumer.committed(Set.of(tp)).get(tp);
        if (committed == null) {
          consumer.seekToBeginning(List.of(tp));
        } else {
          consumer.seek(tp, committed.offset());
        }
      }
    }
    LOG.info("resuming {} partitions from table offsets {}", partitions.size(), lowest);
  }

  /**
   * Stops without committing the cycle being filled: its files are deleted. A cycle already
   * sealed (complete, waiting for its commit) still lands.
   */
  @Override
  public void close() {
    commits.close();
    for (TableChannel channel : channels.values()) {
      channel.close();
    }
    if (deadLetters != null) {
      deadLetters.close();
    }
    consumer.close();
    metrics.unregister();
    allocator.close();
  }
}
