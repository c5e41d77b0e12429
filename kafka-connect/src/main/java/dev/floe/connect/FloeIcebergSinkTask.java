package dev.floe.connect;

import dev.floe.iceberg.CycleFiles;
import dev.floe.iceberg.SnapshotExpiry;
import dev.floe.kafka.sink.IdleCommits;
import dev.floe.kafka.sink.OutageRetries;
import dev.floe.kafka.sink.SnapshotOffsets;
import dev.floe.kafka.sink.SnapshotOffsets.Position;
import dev.floe.kafka.sink.StorageFailures;
import dev.floe.kafka.sink.TableCommitter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.IllegalWorkerStateException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task of {@link FloeIcebergSinkConnector}: routes each record to its tables, where {@link
 * TableSink}s decode and encode it natively, and commits its own files to each table every commit
 * cycle, exactly once, with the Kafka sink's protocol ({@link TableCommitter}): the cycle's offsets
 * go into the same commit's snapshot summary and table property ({@code
 * floe.kafka.offsets.<connect group>}), and the commit is refused if another task moved them
 * (fencing).
 *
 * <p>The tables, not Kafka, say where to resume: {@link #open} loads each table's offsets for the
 * assigned partitions and seeks to them; records below a table's offset are not written to it
 * again. {@link #preCommit} gives Connect only offsets the tables hold, so the consumer group
 * never runs ahead of them; a partition no table has offsets for yet (a table that Iceberg's
 * connector wrote until now) starts from the group's offsets, where that connector left it.
 *
 * <p>A cycle ends by {@code iceberg.control.commit.interval-ms}, {@code floe.commit.records},
 * {@code floe.commit.bytes}, and when partitions are revoked. Each task commits on its own, so an
 * idle partition or task holds nobody back. The interval is kept by a timer of the task's own:
 * while no records come, Connect calls the task only every {@code offset.flush.interval.ms}, and
 * the last records read would otherwise wait for that.
 *
 * <p>A cycle is committed in the background, as the Kafka sink does ({@link BackgroundCommits}):
 * the task seals it and goes on putting the next one while its files are closed and committed;
 * {@link #preCommit} reports it once it is in the tables. A fenced commit drops the cycle in
 * progress too, and the task resumes from the tables.
 *
 * <p>An outage of the tables' storage or catalog ({@link StorageFailures}: an I/O failure, a 5xx,
 * 408 or 429 answer, a commit whose outcome stayed unknown) is ridden out, the Connect way, instead
 * of failing the task: the cycle in progress and any cycle whose commit failed are dropped, the
 * task pauses its partitions (Connect goes on polling, so the task stays in its group) and, after a
 * wait of 1 s doubling up to 30 s, reads them again from what the tables hold. Fencing keeps a
 * commit whose outcome was unknown from being written twice if it landed after all. Past {@code
 * floe.storage.retry.timeout.ms} of failures with no commit between, the task fails, saying so.
 *
 * <p>Threads: Connect's task thread calls {@link #put}, {@link #preCommit}, {@link #open} and
 * {@link #close}; the commit timer commits between them. Both hold {@link #cycleLock} for all
 * they do, so the cycle's state below is only touched by one of them at a time. The commit thread
 * touches none of it: it gets a sealed cycle and gives back its outcome.
 */
public class FloeIcebergSinkTask extends SinkTask {
  private static final Logger LOG = LoggerFactory.getLogger(FloeIcebergSinkTask.class);

  private ConnectorSettings settings;
  private Catalog catalog;
  private BufferAllocator allocator;
  private TaskMetrics metrics;
  private BadRecords badRecords;
  private RecordValues values;
  private Routes routes;
  private TableLoader loader;
  private TableCommitter committer;
  private BackgroundCommits commits;
  private String group;
  /** Open tables by name (static ones from the start, dynamic ones when first routed to). */
  private final Map<String, TableSink> sinks = new LinkedHashMap<>();
  /** What each table holds of the assigned partitions, as last read or committed. */
  private final Map<String, Map<TopicPartition, Position>> held = new HashMap<>();
  /** Open tables committed without files when idle ({@code floe.idle.commit.cycles}); made at start. */
  private IdleCommits<String> idleCommits;
  private final Set<TopicPartition> assigned = new HashSet<>();
  /** Offsets the tables hold for the assigned partitions: what {@link #preCommit} reports. */
  private final Map<TopicPartition, Long> committed = new HashMap<>();
  /** The cycle: the next offset after the last record put, per partition, and the tables written. */
  private final Map<TopicPartition, Long> cycleNext = new HashMap<>();
  private final Set<String> cycleTables = new HashSet<>();
  private long cycleRecords;
  private long cycleBytes;
  /** The first offset put in the cycle, per partition: where to read again if the cycle is dropped. */
  private final Map<TopicPartition, Long> cycleFirst = new HashMap<>();
  /**
   * Where the task last asked Connect to seek each partition, until its first record after the
   * seek arrives: a first record below it means the consumer found the offset past the log's end
   * and reset (the topic was recreated, or its log truncated).
   */
  private final Map<TopicPartition, Long> seekedTo = new HashMap<>();
  /** Partitions whose offsets were reused, and which tables still hold offsets from before. */
  private final ReusedOffsets reused = new ReusedOffsets();
  /** Tables a dynamic route named that do not exist, as found in this cycle. */
  private final Map<String, TableLoader.MissingTableException> missingTables = new HashMap<>();
  /** See {@link Routed}; null at the start of each put. */
  private Routed routed;
  private long lastCommitNanos;
  private boolean warnedTombstones;
  private final ReentrantLock cycleLock = new ReentrantLock();
  private ScheduledExecutorService commitTimer;
  /**
   * The first failure of a call into the task or of the timer's commit. From then on the task
   * commits nothing: its cycle in progress was dropped when the failure was kept, and every later
   * call fails for it (close and preCommit only report what the tables hold). Without this, the
   * cycle after a failed one would be committed by Connect's closing calls or by the timer, with
   * offsets past records that never reached a table.
   */
  private RuntimeException failure;
  /**
   * Set when a commit was fenced outside {@link #put} (the timer's, or one found by preCommit or
   * close): the next put asks Connect to rewind to these offsets.
   */
  private Map<TopicPartition, Long> rewindAfterFence;
  /** Riding out outages of the tables' storage or catalog ({@code floe.storage.retry.timeout.ms}). */
  private OutageRetries outages;
  /** The outage being waited out, or null. */
  private Outage outage;
  /** When the last put with records came, or the task last resumed after an outage. */
  private long lastRecordsNanos = System.nanoTime();

  /**
   * An outage the task waits out: its cycles were dropped and its partitions are paused until
   * {@link #retryAtNanos}; then they are read again from what the tables hold, or from {@link
   * #readAgain} where that is lower. Kept until a resume succeeds: a resume that fails on the outage
   * too must not lose where the dropped records began.
   */
  private static final class Outage {
    /**
     * The lowest offset of each partition that was read and dropped: a partition no table holds
     * offsets for yet starts there again (where Connect's group had it).
     */
    final Map<TopicPartition, Long> readAgain = new HashMap<>();
    /** Partitions assigned during the outage, whose tables' offsets {@link #open} did not read. */
    final Set<TopicPartition> opened = new HashSet<>();
    final long startedNanos = System.nanoTime();
    long retryAtNanos;

    void readAgain(TopicPartition tp, long offset) {
      readAgain.merge(tp, offset, Math::min);
    }
  }

  @Override
  public String version() {
    return Version.VERSION;
  }

  @Override
  public void start(Map<String, String> props) {
    settings = new ConnectorSettings(props);
    allocator = directMemory(); // first: without the JVM's flags nothing else is started
    group = settings.groupId();
    metrics = new TaskMetrics(settings.connectorName(), settings.taskIndex());
    badRecords = new BadRecords(settings.toleratesErrors(), errantRecordReporter(), metrics);
    values = new RecordValues();
    routes = new Routes(settings);
    committer = new TableCommitter(group);
    commits = new BackgroundCommits(committer, badRecords, SnapshotExpiry.every(settings.expireSnapshotsInterval()),
        "floe-connect-commit-" + settings.connectorName() + "-" + settings.taskIndex());
    registerJdbcDrivers();
    catalog = CatalogUtil.buildIcebergCatalog(settings.catalogName(), settings.catalogProperties(), hadoopConf());
    loader = new TableLoader(catalog, settings, RecordValues.fastPath(props.get("value.converter")));
    idleCommits = new IdleCommits<>(settings.idleCommitCycles());
    outages = new OutageRetries(settings.storageRetryTimeout(), ConnectorSettings.STORAGE_RETRY_TIMEOUT_MS);
    lastCommitNanos = System.nanoTime();
    for (String table : routes.staticTables()) {
      if (!loader.createdFromFirstRecord(table)) {
        sink(table, null); // fail fast on a missing table or one floe cannot write
      }
    }
    startCommitTimer();
    LOG.info("floe sink task {} of {} started: tables {}, offsets under group '{}', values {}", settings.taskIndex(),
        settings.connectorName(), routes.staticTables().isEmpty() ? "by route field" : routes.staticTables(), group,
        RecordValues.fastPath(props.get("value.converter")) ? "as bytes (fast path)" : "converted to JSON");
  }

  /** Checks the interval ten times per interval (at most every second, at least every 100 ms). */
  private void startCommitTimer() {
    long period = Math.clamp(settings.commitIntervalMillis() / 10, 100, 1000);
    commitTimer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "floe-connect-commit-timer-" + settings.connectorName() + "-" + settings.taskIndex());
      t.setDaemon(true);
      return t;
    });
    commitTimer.scheduleWithFixedDelay(this::commitOnTime, period, period, TimeUnit.MILLISECONDS);
  }

  /**
   * The timer's tick, unless the task thread is busy (it does the same): takes a commit that has
   * ended (so that preCommit reports it), and commits a cycle whose interval has passed.
   */
  private void commitOnTime() {
    if (!cycleLock.tryLock()) {
      return;
    }
    try {
      if (failure == null && rewindAfterFence == null && outage == null) {
        Map<TopicPartition, Long> rewind = applyOutcome(commits.poll());
        if (rewind == null && !cycleNext.isEmpty() && intervalPassed()) {
          rewind = commit(false);
        }
        keepRewind(rewind); // only put may ask Connect to rewind
      }
    } catch (RuntimeException e) {
      if (!rideOutOnTimer(e)) {
        LOG.error("commit on the interval failed; the task fails on its next call", e);
        fail(e);
      }
    } finally {
      cycleLock.unlock();
    }
  }

  /** {@link #rideOut} on the timer's thread, which leaves pausing the partitions to the next put. */
  private boolean rideOutOnTimer(RuntimeException e) {
    try {
      return rideOut(e, List.of());
    } catch (RuntimeException outlasted) {
      LOG.error("the task fails on its next call", outlasted); // kept by fail()
      return true;
    }
  }

  /**
   * What the task thread does first on each call: fails for the timer's failure, and takes the
   * outcome of a background commit that has ended, the timer's or its own.
   *
   * @return offsets to rewind to after a fenced commit (the caller asks Connect), or null
   */
  private Map<TopicPartition, Long> takeOutcomes() {
    if (failure != null) {
      throw new ConnectException("this task failed before and commits nothing more: " + failure.getMessage(), failure);
    }
    Map<TopicPartition, Long> rewind = rewindAfterFence;
    rewindAfterFence = null;
    return rewind != null ? rewind : applyOutcome(commits.poll());
  }

  private ErrantRecordReporter errantRecordReporter() {
    try {
      return context.errantRecordReporter();
    } catch (NoSuchMethodError | NoClassDefFoundError oldWorker) {
      return null;
    }
  }

  /**
   * Keeps the task's first failure and drops its cycle in progress (the records are read again
   * from the tables' offsets by whoever owns their partitions next).
   *
   * @return {@code e}, for the caller to throw
   */
  private RuntimeException fail(RuntimeException e) {
    outage = null; // a failed task waits for nothing: every later call fails
    if (failure == null) {
      failure = e;
      try {
        abortCycle();
      } catch (RuntimeException abortFailed) {
        e.addSuppressed(abortFailed);
      }
    }
    return e;
  }

  /**
   * Registers the JDBC drivers this plugin bundles: DriverManager finds drivers through the thread's
   * class loader, which in a worker is Connect's, not the plugin's (the embedded catalog's SQLite).
   */
  private static void registerJdbcDrivers() {
    for (java.sql.Driver ignored : java.util.ServiceLoader.load(java.sql.Driver.class, FloeIcebergSinkTask.class.getClassLoader())) {
      // loading each driver class registers it
    }
  }

  private Configuration hadoopConf() {
    Configuration conf = new Configuration();
    String dir = settings.hadoopConfDir();
    if (dir != null) {
      for (String file : List.of("core-site.xml", "hdfs-site.xml", "hive-site.xml")) {
        Path path = Path.of(dir, file);
        if (Files.isRegularFile(path)) {
          conf.addResource(new org.apache.hadoop.fs.Path(path.toUri()));
        }
      }
    }
    settings.hadoopProperties().forEach(conf::set);
    return conf;
  }

  @Override
  public void open(Collection<TopicPartition> partitions) {
    cycleLock.lock();
    try {
      if (outage == null) {
        try {
          openLocked(partitions);
          return;
        } catch (RuntimeException e) {
          if (!rideOut(e, List.of())) {
            throw fail(e);
          }
        }
      }
      // During an outage: what the tables hold of these is read when the task resumes.
      assigned.addAll(partitions);
      outage.opened.addAll(partitions);
    } finally {
      cycleLock.unlock();
    }
  }

  private void openLocked(Collection<TopicPartition> partitions) {
    Map<TopicPartition, Long> rewind = takeOutcomes();
    if (rewind == null) {
      rewind = applyOutcome(commits.await()); // the tables are read next: let a commit in flight land
    }
    if (rewind != null) {
      seek(rewind);
    }
    assigned.addAll(partitions);
    openStaticTablesCreatedSince();
    for (Map.Entry<String, TableSink> e : sinks.entrySet()) {
      e.getValue().table().refresh();
      loadHeld(e.getKey(), e.getValue().table(), partitions);
    }
    seekToTables(partitions);
  }

  /**
   * Opens the static tables that were to be created from their first record and exist now (another
   * task created them since this one started). A partition is sought to the lowest offset the
   * static tables hold, and one left out would have its records below the others' offsets skipped:
   * a cycle whose commit landed in one table and not in the one created.
   */
  private void openStaticTablesCreatedSince() {
    for (String table : routes.staticTables()) {
      if (!sinks.containsKey(table) && !loader.createdFromFirstRecord(table)) {
        sink(table, null);
      }
    }
  }

  /** Reads what {@code table} holds of {@code partitions} (absent: never stored). */
  private void loadHeld(String name, Table table, Collection<TopicPartition> partitions) {
    Map<TopicPartition, Position> mine = held.computeIfAbsent(name, n -> new HashMap<>());
    partitions.forEach(mine::remove);
    mine.putAll(SnapshotOffsets.latest(
        ((org.apache.iceberg.HasTableOperations) table).operations().current(), group, partitions));
  }

  /**
   * Seeks each partition that every static table holds offsets for to the lowest of them (records
   * below a table's own offset are then skipped for it). Other partitions start where Connect's
   * group left them, which is never past what the tables hold.
   */
  private void seekToTables(Collection<TopicPartition> partitions) {
    Map<TopicPartition, Long> seeks = heldByEveryTable(partitions);
    if (!seeks.isEmpty()) {
      seek(seeks);
      committed.putAll(seeks);
      LOG.info("resuming from the tables' offsets: {}", seeks);
    }
  }

  /** The lowest offset the open tables hold of each of {@code partitions} that every one of them holds. */
  private Map<TopicPartition, Long> heldByEveryTable(Collection<TopicPartition> partitions) {
    Map<TopicPartition, Long> lowestHeld = new HashMap<>();
    if (sinks.isEmpty() || !(routes.toEveryTable() || !routes.staticTables().isEmpty())) {
      return lowestHeld;
    }
    for (TopicPartition tp : partitions) {
      Long lowest = null;
      boolean everyTable = true;
      for (String name : sinks.keySet()) {
        Position p = held.getOrDefault(name, Map.of()).get(tp);
        if (p == null) {
          everyTable = false;
          break;
        }
        lowest = lowest == null ? p.next() : Math.min(lowest, p.next());
      }
      if (everyTable && lowest != null) {
        lowestHeld.put(tp, lowest);
      }
    }
    return lowestHeld;
  }

  /**
   * The table's sink, loaded (or created, from {@code sample} if the config gives no schema) first.
   *
   * @param sample the record routed to it, or null
   * @throws TableLoader.MissingTableException for a table that is not there and not to be created (as in this cycle before)
   * @throws TableLoader.NoSchemaInRecordException for one to be created from a sample that gives no schema
   */
  private TableSink sink(String name, SinkRecord sample) {
    TableSink sink = sinks.get(name);
    if (sink == null) {
      TableLoader.MissingTableException missing = missingTables.get(name);
      if (missing != null) {
        throw missing; // looked up once a cycle, not once a record
      }
      Table table;
      try {
        table = loader.load(name, sample);
      } catch (TableLoader.MissingTableException e) {
        missingTables.put(name, e);
        throw e;
      }
      org.apache.iceberg.catalog.TableIdentifier id = org.apache.iceberg.catalog.TableIdentifier.parse(name);
      sink = new TableSink(id, table, () -> catalog.loadTable(id), settings, settings.taskIndex(), allocator, badRecords,
          metrics);
      sinks.put(name, sink);
      metrics.openTables(sinks.size());
      loadHeld(name, table, assigned);
    }
    return sink;
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    cycleLock.lock();
    try {
      if (holdForOutage(records)) {
        return;
      }
      noteQuiet(records);
      Map<TopicPartition, Long> rewind = takeOutcomes();
      if (rewind != null) {
        rewindAlso(records, rewind);
        return;
      }
      putLocked(records);
    } catch (NoSuchTableException e) {
      // A table this task writes was dropped: its records of the cycle cannot land. The task fails;
      // restarted, it reads them again from the tables' offsets, and a dynamic route to the table
      // makes them bad records (a static one fails the start, naming the table).
      throw fail(new ConnectException("a table this task writes was dropped while it ran (" + e.getMessage()
          + "); the task stops without committing this cycle, and a restart routes its records again", e));
    } catch (RuntimeException e) {
      if (rideOut(e, records)) {
        holdForOutage(List.of()); // pauses the partitions at once
        return;
      }
      throw fail(e); // also a record refused under errors.tolerance=none: its cycle is not committed
    } finally {
      cycleLock.unlock();
    }
  }

  /**
   * Whether an outage of the tables' storage or catalog explains {@code e}: then the cycle in
   * progress is dropped, with any cycle whose commit failed, and the task waits the outage out
   * ({@link #holdForOutage}). Past {@code floe.storage.retry.timeout.ms} the task fails, saying for
   * how long the outage went on.
   *
   * @param delivered the records of a put that failed: read again too
   */
  private boolean rideOut(RuntimeException e, Collection<SinkRecord> delivered) {
    if (failure != null || !StorageFailures.isOutage(e)) {
      return false;
    }
    long waitMs;
    try {
      waitMs = outages.waitAfter(e);
    } catch (RuntimeException notRidden) {
      if (notRidden == e) { // floe.storage.retry.timeout.ms=0
        return false;
      }
      throw fail(new ConnectException(notRidden.getMessage(), e));
    }
    Outage waiting = outage != null ? outage : new Outage();
    cycleFirst.forEach(waiting::readAgain);
    dropped(delivered, waiting);
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BackgroundCommits.CycleFailed failedCommit) {
        failedCommit.cycle().first().forEach(waiting::readAgain);
        break;
      }
    }
    if (rewindAfterFence != null) {
      rewindAfterFence.forEach(waiting::readAgain);
      rewindAfterFence = null;
    }
    for (TableSink sink : sinks.values()) {
      try {
        sink.abort();
      } catch (RuntimeException abortFailed) { // its files may stay in the store, referenced by nothing
        LOG.warn("dropping the cycle of table {} during the outage: {}", sink.id(), abortFailed.toString());
      }
    }
    clearCycle();
    outage = waiting;
    waiting.retryAtNanos = System.nanoTime() + waitMs * 1_000_000L;
    metrics.outageRetried();
    LOG.warn("the tables' storage or catalog failed: the cycle is dropped and the task's partitions wait, paused from"
        + " its next put, to be read again from the tables in {} ms (retry {} of this outage): {}", waitMs,
        outages.retries(), e.toString());
    return true;
  }

  /**
   * While an outage is waited out (put only: Connect's consumer is this thread's): keeps the
   * partitions paused and drops what Connect delivers, remembering where it began; once the wait is
   * over, resumes every partition from what the tables hold. Connect calls put after every poll,
   * records or not, and {@code context.timeout} bounds the poll's wait by the time left.
   *
   * @return whether the task is waiting an outage out (or has just resumed): {@code records} were dropped
   */
  private boolean holdForOutage(Collection<SinkRecord> records) {
    Outage waiting = outage;
    if (waiting == null) {
      return false;
    }
    dropped(records, waiting);
    if (System.nanoTime() >= waiting.retryAtNanos) {
      try {
        if (resumeAfterOutage(waiting)) {
          return true;
        }
        waiting.retryAtNanos = System.nanoTime() + 1_000_000_000L; // the commit in flight has not ended
      } catch (RuntimeException e) {
        if (!rideOut(e, List.of())) {
          throw fail(e);
        }
      }
    }
    try {
      context.pause(assigned.toArray(new TopicPartition[0]));
    } catch (IllegalWorkerStateException notAssigned) {
      LOG.debug("pausing for the outage: {}", notAssigned.toString()); // what is delivered is dropped all the same
    }
    context.timeout(Math.max(1, (outage.retryAtNanos - System.nanoTime()) / 1_000_000));
    return true;
  }

  /**
   * Records dropped for an outage: read again from the first of each partition, and a partition's
   * first record since a seek still shows a consumer reset (checkSeek), before a resume's seek
   * replaces the one it was asked for (helper-73: the reset went unseen, and the new log's records
   * were skipped as held).
   */
  private void dropped(Collection<SinkRecord> records, Outage waiting) {
    Set<TopicPartition> seen = new HashSet<>();
    for (SinkRecord record : records) {
      TopicPartition tp = sourcePartition(record);
      if (seen.add(tp)) {
        checkSeek(tp, record.originalKafkaOffset());
      }
      waiting.readAgain(tp, record.originalKafkaOffset());
    }
  }

  /**
   * A whole commit interval since the last records (or the last resume) with nothing to write and
   * nothing being committed: an outage before has nothing left to redo ({@link
   * OutageRetries#nothingToRedo}), so a later one of a quiet topic starts its own clock.
   */
  private void noteQuiet(Collection<SinkRecord> records) {
    long now = System.nanoTime();
    if (!records.isEmpty()) {
      lastRecordsNanos = now;
    } else if (cycleNext.isEmpty() && !commits.busy()
        && now - lastRecordsNanos >= settings.commitIntervalMillis() * 1_000_000L) {
      outages.nothingToRedo();
    }
  }

  /**
   * Reads the tables again and seeks every partition to what they hold (or lower, where records
   * were dropped that no table holds yet), then lets Connect fetch again.
   *
   * @return false if a cycle's commit is still under way (its store calls retrying): not resumed yet
   */
  private boolean resumeAfterOutage(Outage waiting) {
    if (commits.busy()) {
      BackgroundCommits.Outcome outcome = commits.poll();
      if (outcome == null) {
        Duration waited = Duration.ofNanos(System.nanoTime() - waiting.startedNanos);
        if (waited.compareTo(settings.storageRetryTimeout()) >= 0) { // helper-72: a hung commit never timed out
          throw fail(new ConnectException("a cycle's commit has not ended " + waited.toSeconds() + " s into an outage of"
              + " the tables' storage or catalog (" + ConnectorSettings.STORAGE_RETRY_TIMEOUT_MS + " is "
              + settings.storageRetryTimeout() + "); the task stops without it"));
        }
        return false;
      }
      Map<TopicPartition, Long> rewind = applyOutcome(outcome); // landed or fenced after all
      if (rewind != null) {
        rewind.forEach(waiting::readAgain);
      }
    }
    Map<TopicPartition, Long> seeks = resumeFromTables(new HashMap<>(waiting.readAgain));
    waiting.opened.retainAll(assigned);
    Map<TopicPartition, Long> openedHeld = heldByEveryTable(waiting.opened);
    seeks.putAll(openedHeld); // as open() would seek them: a consumer reset below that shows a reuse
    committed.putAll(openedHeld); // what open() would have reported for them
    seek(seeks);
    try {
      context.resume(assigned.toArray(new TopicPartition[0]));
    } catch (IllegalWorkerStateException notAssigned) {
      LOG.debug("resuming after the outage: {}", notAssigned.toString());
    }
    outage = null;
    lastRecordsNanos = System.nanoTime();
    LOG.info("after the outage's wait, the tables could be read: reading the partitions again from {}", seeks);
    return true;
  }

  /**
   * A commit was fenced outside put, and Connect may have polled {@code records} before its seek
   * applies: they are read again after the rewind too, so they are dropped here, and their
   * partitions rewound no later than them.
   */
  private void rewindAlso(Collection<SinkRecord> records, Map<TopicPartition, Long> rewind) {
    Map<TopicPartition, Long> seeks = new HashMap<>(rewind);
    Set<TopicPartition> seen = new HashSet<>();
    for (SinkRecord record : records) {
      TopicPartition tp = sourcePartition(record);
      if (seen.add(tp)) {
        checkSeek(tp, record.originalKafkaOffset()); // a reset still shows before the seek replaces it (helper-73)
      }
      seeks.merge(tp, record.originalKafkaOffset(), Math::min);
    }
    seek(seeks);
    LOG.info("rewinding after a fenced commit: {}", seeks);
  }

  /**
   * The partition a record was read from: before any transform, which may rename its topic or
   * partition (RegexRouter). Offsets are kept and reported by it, as Connect's consumer knows it.
   */
  static TopicPartition sourcePartition(SinkRecord record) {
    return new TopicPartition(record.originalTopic(), record.originalKafkaPartition());
  }

  /** Asks Connect to seek, and remembers where, to tell a reset consumer from a seek (see {@link #seekedTo}). */
  private void seek(Map<TopicPartition, Long> offsets) {
    context.offset(offsets);
    seekedTo.putAll(offsets);
  }

  /**
   * The first record of {@code tp} since the task asked Connect to seek it: below the seek's
   * offset, the consumer did not find that offset and reset to the log's start (Connect's default
   * {@code auto.offset.reset}). The tables hold offsets past the log's end, so the topic was
   * recreated or its log truncated: its offsets were reused, and the records read now are new ones.
   * Without this they would be skipped as already held, up to the offsets the tables hold.
   */
  private void checkSeek(TopicPartition tp, long offset) {
    Long target = seekedTo.remove(tp);
    if (target != null && offset < target) {
      LOG.error("partition {}: the tables hold it up to offset {} but Connect's consumer reset it to {}: the topic was "
          + "recreated or its log truncated (its offsets reused). The records from {} on are written as new ones, "
          + "and the offsets the tables store for it move back", tp, target, offset, offset);
      reused.found(tp, offset);
      routed = null;
    }
  }

  private void putLocked(Collection<SinkRecord> records) {
    // Connect hands records over in runs of one partition (as its consumer fetched them): a
    // partition's bookkeeping is done once per run, not per record.
    TopicPartition tp = null;
    long next = -1;
    routed = null;
    try {
      for (SinkRecord record : records) {
        if (tp == null || record.originalKafkaPartition() != tp.partition()
            || !record.originalTopic().equals(tp.topic())) {
          if (tp != null) {
            cycleNext.put(tp, next);
          }
          tp = sourcePartition(record);
          checkSeek(tp, record.originalKafkaOffset());
          if (!cycleFirst.containsKey(tp)) {
            cycleFirst.put(tp, record.originalKafkaOffset());
          }
        }
        next = record.originalKafkaOffset() + 1;
        cycleRecords++;
        byte[] value;
        try {
          value = values.value(record);
        } catch (org.apache.kafka.connect.errors.DataException e) {
          reject(record, e.getMessage());
          continue;
        }
        if (value != null) {
          cycleBytes += value.length;
          route(record, value, null, tp);
        } else {
          tombstone(record, tp);
        }
      }
    } finally {
      if (tp != null) {
        cycleNext.put(tp, next);
      }
    }
    metrics.recordsPut(records.size());
    metrics.uncommitted(cycleRecords);
    commitIfDue();
  }

  private void route(SinkRecord record, byte[] value, byte[] key, TopicPartition tp) {
    List<String> tables;
    try {
      tables = routes.route(record.value(), value);
    } catch (IllegalArgumentException e) {
      reject(record, e.getMessage());
      return;
    }
    for (String name : tables) {
      Routed to = routed;
      if (to == null || to.partition != tp || !to.table.equals(name)) {
        TableSink sink;
        try {
          sink = sink(name, record);
        } catch (TableLoader.NoSchemaInRecordException e) {
          if (value != null) { // a tombstone has nothing to delete from a table not created yet
            reject(record, e.getMessage());
          }
          continue;
        } catch (TableLoader.MissingTableException e) {
          reject(record, e.getMessage()); // a dynamic route naming a table that is not there
          continue;
        }
        to = routed = new Routed(name, tp, sink, skipBelow(name, held.get(name).get(tp), tp));
      }
      if (record.originalKafkaOffset() < to.skipBelow) {
        continue; // the table has it already (a task before this one committed it)
      }
      cycleTables.add(name); // only a table a record goes to takes part in the cycle's commit
      to.sink.add(record, tp, value, key);
    }
  }

  /**
   * The last table a record went to, for the partition run it was in (one {@link TopicPartition}
   * instance per run), and what the table held of the partition: the same for the rest of the run
   * while one table takes it. Valid for one {@link #put}: commits and rebalances, which change
   * what tables hold, come between puts.
   */
  private record Routed(String table, TopicPartition partition, TableSink sink, long skipBelow) {}

  /** Records below this are in the table already: its stored offset, unless it is from before a reuse. */
  private long skipBelow(String table, Position stored, TopicPartition tp) {
    return stored == null ? Long.MIN_VALUE : reused.skipBelow(table, tp, stored.next());
  }

  private void tombstone(SinkRecord record, TopicPartition tp) {
    if (!settings.upsert()) {
      metrics.tombstoneSkipped();
      if (!warnedTombstones) {
        warnedTombstones = true;
        LOG.info("skipping records with a null value (tombstones) in append mode, first at topic {}, partition {}, "
            + "offset {}; the TombstonesSkipped metric counts them", record.originalTopic(),
            record.originalKafkaPartition(), record.originalKafkaOffset());
      }
      return;
    }
    byte[] key;
    try {
      key = values.key(record);
    } catch (org.apache.kafka.connect.errors.DataException e) { // a key converted to no JSON object (helper-77)
      reject(record, "the tombstone's key: " + e.getMessage());
      return;
    }
    if (key == null) {
      reject(record, "a tombstone without a key: nothing says which row to delete");
    } else if (!routes.toEveryTable()) {
      reject(record, "a tombstone has no value to read the route field from");
    } else {
      route(record, null, key, tp);
    }
  }

  private void reject(SinkRecord record, String reason) {
    if (!badRecords.tolerated()) {
      throw new ConnectException("bad record at topic " + record.originalTopic() + ", partition "
          + record.originalKafkaPartition() + ", offset " + record.originalKafkaOffset() + " (errors.tolerance=none): "
          + reason);
    }
    badRecords.report(record, reason);
  }

  /**
   * Commits when the cycle is due. A fence the commit finds (awaiting the one before) is rewound
   * from the next put, as in {@link #rewindOrCommit}: this runs in preCommit too.
   */
  private void commitIfDue() {
    boolean due = cycleRecords >= settings.commitRecords() || cycleBytes >= settings.commitBytes() || intervalPassed();
    if (due) {
      keepRewind(commit(false));
    }
  }

  /** Keeps {@code rewind} (if not null) for the next put to ask of Connect, with any kept before. */
  private void keepRewind(Map<TopicPartition, Long> rewind) {
    if (rewind == null) {
      return;
    }
    if (rewindAfterFence == null) {
      rewindAfterFence = rewind;
    } else {
      rewind.forEach((tp, offset) -> rewindAfterFence.merge(tp, offset, Math::min));
    }
  }

  private boolean intervalPassed() {
    return System.nanoTime() - lastCommitNanos >= settings.commitIntervalMillis() * 1_000_000L;
  }

  /**
   * Ends the cycle: seals every table written in it (their writer threads close the files) and
   * hands it to the commit thread, which commits table by table with the cycle's offsets once the
   * files and dead letters are done. The commit before it is awaited first; if that one was fenced,
   * this cycle is dropped instead. The {@code last} cycle before partitions are given away also
   * stores the offsets reached in idle tables ({@link #offsetsOnly}), even if it has no records.
   *
   * @return null, or after a fence the offsets to rewind to: the caller passes them to Connect
   */
  private Map<TopicPartition, Long> commit(boolean last) {
    lastCommitNanos = System.nanoTime();
    Map<TopicPartition, Long> rewind = applyOutcome(commits.await());
    if (rewind != null) {
      return rewind;
    }
    releaseIdleTables();
    if (cycleNext.isEmpty() && !last) {
      return null;
    }
    Map<TopicPartition, Position> offsets = new HashMap<>();
    if (cycleNext.isEmpty()) { // the last cycle, empty: what the tables hold as a whole
      committed.forEach((tp, next) -> {
        if (assigned.contains(tp)) {
          offsets.put(tp, new Position(next, null));
        }
      });
    } else {
      cycleNext.forEach((tp, next) -> offsets.put(tp, new Position(next, null)));
    }
    // Before any table is sealed: loading a table let go may fail, and sealed files would be lost
    List<BackgroundCommits.TableCut> withoutFiles = offsetsOnly(offsets, last);
    if (cycleNext.isEmpty() && withoutFiles.isEmpty()) {
      return null;
    }
    List<BackgroundCommits.TableCut> cuts = new ArrayList<>();
    for (String name : cycleTables) {
      TableSink sink = sinks.get(name);
      Map<TopicPartition, Position> expected = new HashMap<>(held.get(name));
      expected.keySet().retainAll(offsets.keySet());
      cuts.add(new BackgroundCommits.TableCut(name, sink.table(), sink.seal(), expected, offsetsFor(name, expected, offsets)));
    }
    cuts.addAll(withoutFiles);
    metrics.inFlight(cycleRecords); // until its commit ends: still not in the tables
    commits.submit(new BackgroundCommits.Sealed(List.copyOf(cuts), offsets, Map.copyOf(cycleFirst), cycleRecords,
        System.nanoTime()), () -> metrics.inFlight(0));
    clearCycle();
    return null;
  }

  /**
   * Commits without files for tables that took no record of this cycle, when either
   *
   * <ul>
   *   <li>they hold a partition whose offsets were reused past where the cycle ends it: their
   *       offsets move back too. A table that kept its old offset would skip the new records below
   *       it once a restart reads the partition from the lowest of the tables' offsets (no reset
   *       then to show the reuse); or
   *   <li>they are open and got nothing for {@code floe.idle.commit.cycles} cycles in a row (or
   *       this is the last cycle) while a partition moved past what they hold: they store the
   *       cycle's end. Left alone, a rarely routed table would hold every partition back to its
   *       last data, and each {@link #open} (every rebalance) would read all the records since
   *       then again, skipping them for every table.
   * </ul>
   */
  private List<BackgroundCommits.TableCut> offsetsOnly(Map<TopicPartition, Position> cycleEnd, boolean last) {
    List<BackgroundCommits.TableCut> cuts = new ArrayList<>();
    List<String> dropped = new ArrayList<>();
    for (Map.Entry<String, Map<TopicPartition, Position>> entry : held.entrySet()) {
      String name = entry.getKey();
      if (cycleTables.contains(name)) {
        idleCommits.reset(name);
        continue;
      }
      Map<TopicPartition, Position> stored = movingBack(name, entry.getValue(), cycleEnd);
      if (stored.isEmpty()) {
        stored = idleBehind(name, entry.getValue(), cycleEnd, last);
      }
      if (stored.isEmpty()) {
        continue;
      }
      Map<TopicPartition, Position> expected = new HashMap<>(entry.getValue());
      expected.keySet().retainAll(stored.keySet());
      TableSink open = sinks.get(name);
      Table table;
      try { // a table let go while idle is loaded as it is, never created
        table = open != null ? open.table() : catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.parse(name));
      } catch (NoSuchTableException gone) {
        dropped.add(name); // dropped since: nothing stored to move back
        continue;
      }
      cuts.add(new BackgroundCommits.TableCut(
          name, table, CompletableFuture.completedFuture(CycleFiles.none()), expected, stored));
    }
    dropped.forEach(held::remove);
    return cuts;
  }

  /** The partitions whose offsets {@code name} holds from before a reuse, past the cycle's end: moved back to it. */
  private Map<TopicPartition, Position> movingBack(
      String name, Map<TopicPartition, Position> holds, Map<TopicPartition, Position> cycleEnd) {
    Map<TopicPartition, Position> back = new HashMap<>();
    if (!reused.any()) {
      return back;
    }
    holds.forEach((tp, position) -> {
      Position end = cycleEnd.get(tp);
      if (reused.stale(name, tp) && end != null && position.next() > end.next()) {
        back.put(tp, end);
      }
    });
    if (!back.isEmpty()) {
      LOG.warn("table {}: the offsets stored for {} move back to {} (their offsets were reused), without files",
          name, back.keySet(), back);
    }
    return back;
  }

  /**
   * The partitions an open table that took no record holds below the cycle's end, once it has been
   * so for {@code floe.idle.commit.cycles} cycles (or at the last one); empty before, or if none.
   */
  private Map<TopicPartition, Position> idleBehind(
      String name, Map<TopicPartition, Position> holds, Map<TopicPartition, Position> cycleEnd, boolean last) {
    if (!sinks.containsKey(name)) {
      return Map.of();
    }
    Map<TopicPartition, Position> behind = new HashMap<>();
    holds.forEach((tp, position) -> {
      Position end = cycleEnd.get(tp);
      if (end != null && !reused.stale(name, tp) && position.next() < end.next()) {
        behind.put(tp, end);
      }
    });
    int cycles = idleCommits.due(name, !behind.isEmpty(), last);
    if (cycles == 0) {
      return Map.of();
    }
    LOG.info("table {} took no records for {} cycles{}: storing the offsets reached for {}, without files", name,
        cycles, last ? " (the last before partitions are given away)" : "", behind.keySet());
    return behind;
  }

  /**
   * Tables that took no record in this cycle, nor for {@code floe.table.idle.ms}, give back their
   * threads and batches; the commit before is in, so nothing is left on their threads. Dynamically
   * routed ones are forgotten.
   */
  private void releaseIdleTables() {
    if (settings.tableIdleMillis().isEmpty()) {
      return;
    }
    long idleNanos = settings.tableIdleMillis().getAsLong() * 1_000_000L;
    sinks.entrySet().removeIf(entry -> {
      String name = entry.getKey();
      TableSink sink = entry.getValue();
      if (cycleTables.contains(name)) {
        return false;
      }
      sink.releaseIdle(idleNanos);
      if (!sink.released() || routes.staticTables().contains(name)) {
        return false;
      }
      // A dynamically routed table is let go too: open() and a fence read the offsets of every
      // open table, a catalog round trip each. Its next record loads it again, with what it
      // holds. What it held is kept, for offsets moving back (offsetsOnly).
      sink.close();
      routed = null;
      return true;
    });
    metrics.openTables(sinks.size());
  }

  /**
   * What a table is committed with: the cycle's end, or what the table holds where that is more. A
   * partition read again from below a table's offset (the seek goes to the lowest of the tables',
   * and dynamic routing starts from the group's) must not take the table's offset back, or the
   * records between would be written to it again. Where the offsets were reused (a recreated topic,
   * a truncated log), they go back on purpose.
   */
  private Map<TopicPartition, Position> offsetsFor(
      String table, Map<TopicPartition, Position> held, Map<TopicPartition, Position> cycleEnd) {
    Map<TopicPartition, Position> out = new HashMap<>(cycleEnd);
    held.forEach((tp, holds) -> {
      if (!reused.stale(table, tp) && holds.next() > cycleEnd.get(tp).next()) {
        out.put(tp, holds);
      }
    });
    return out;
  }

  /** Commits the cycle, the last before partitions are given away, and waits until it is in the tables. */
  private Map<TopicPartition, Long> commitAndWait() {
    Map<TopicPartition, Long> rewind = commit(true);
    return rewind != null ? rewind : applyOutcome(commits.await());
  }

  /**
   * On the task's threads, once a cycle's commit has ended: what it committed is now held by its
   * tables (and reported by preCommit). If a table's commit was fenced, the cycle in progress is
   * dropped too, and the partitions of both are read again from the tables.
   *
   * @return null, or after a fence the offsets to rewind to
   */
  private Map<TopicPartition, Long> applyOutcome(BackgroundCommits.Outcome outcome) {
    if (outcome == null) {
      return null;
    }
    BackgroundCommits.Sealed cycle = outcome.cycle();
    for (BackgroundCommits.TableCut cut : cycle.tables().subList(0, outcome.committedTables())) {
      held.get(cut.name()).putAll(cut.offsets());
      cut.offsets().keySet().forEach(tp -> reused.stored(cut.name(), tp));
      idleCommits.reset(cut.name()); // an idle table's commit without files is due until it lands
    }
    if (outcome.fence() == null) {
      if (outcome.committedTables() > 0) { // helper-76: a cycle whose records were all skipped touches no table
        outages.landed(); // a commit went through: the tables' storage and catalog work again
      }
      cycle.offsets().forEach((tp, position) -> committed.put(tp, position.next()));
      LOG.debug("committed {} records to {} tables in {} ms", cycle.records(), cycle.tables().size(), outcome.millis());
      metrics.committed(outcome.files(), outcome.bytes(), outcome.millis());
      return null;
    }
    metrics.fenced();
    Map<TopicPartition, Long> readAgain = new HashMap<>(cycle.first());
    cycleFirst.forEach((tp, first) -> readAgain.merge(tp, first, Math::min));
    abortCycle();
    try {
      return resumeFromTables(readAgain);
    } catch (RuntimeException e) {
      keepRewind(readAgain); // an outage ridden out reads these again too (rideOut takes rewindAfterFence)
      throw e;
    }
  }

  private void abortCycle() {
    for (TableSink sink : sinks.values()) {
      sink.abort();
    }
    clearCycle();
  }

  private void clearCycle() {
    missingTables.clear();
    cycleFirst.clear();
    cycleNext.clear();
    cycleTables.clear();
    cycleRecords = 0;
    cycleBytes = 0;
    metrics.uncommitted(0);
  }

  /**
   * After a fence or an outage: forgets what this task thought and reads the tables again. The
   * dropped records' partitions are read again from their first ({@code readAgain}), or from lower
   * where a table holds less; the others from what every table holds, as {@link #open} seeks them
   * (helper-72: seeking them to the lowest a single table holds skipped records another table,
   * holding nothing of the partition, still needed); what a table holds already is skipped for it
   * as always. A reuse found before
   * is kept: the seek lands inside the new log, so no reset shows it again, and a table whose
   * offset nobody stored since still holds one from before it.
   *
   * @return the offsets to rewind to
   */
  private Map<TopicPartition, Long> resumeFromTables(Map<TopicPartition, Long> readAgain) {
    Map<TopicPartition, Long> seeks = new HashMap<>(readAgain);
    openStaticTablesCreatedSince();
    for (Map.Entry<String, TableSink> e : sinks.entrySet()) {
      e.getValue().table().refresh();
      reloadHeld(e.getKey(), e.getValue().table());
      // Only a partition read again goes below what every table holds: the others go by that, as in open()
      held.get(e.getKey()).forEach((tp, p) -> seeks.computeIfPresent(tp, (k, v) -> Math.min(v, p.next())));
    }
    heldByEveryTable(assigned).forEach((tp, lowest) -> seeks.merge(tp, lowest, Math::min));
    // Tables let go while idle whose old offsets move back at the next commit: that commit
    // expects what they hold now, or it would be fenced again at every cycle.
    for (String name : List.copyOf(held.keySet())) {
      if (!sinks.containsKey(name) && held.get(name).keySet().stream().anyMatch(tp -> reused.stale(name, tp))) {
        try {
          reloadHeld(name, catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.parse(name)));
        } catch (NoSuchTableException gone) {
          held.remove(name);
        }
      }
    }
    committed.forEach(seeks::putIfAbsent);
    seeks.keySet().retainAll(assigned);
    return seeks;
  }

  /**
   * Reads what {@code table} holds of the assigned partitions again; an offset that changed was
   * stored by another writer since, so after a reuse this task found (see {@link ReusedOffsets}).
   */
  private void reloadHeld(String name, Table table) {
    Map<TopicPartition, Position> before = new HashMap<>(held.getOrDefault(name, Map.of()));
    loadHeld(name, table, assigned);
    held.get(name).forEach((tp, p) -> {
      if (!p.equals(before.get(tp))) {
        reused.stored(name, tp);
      }
    });
  }

  /**
   * Keeps the rewind a fenced background commit asks for, for the next {@link #put}; else commits
   * the cycle and waits until it is in the tables ({@code always}), or commits it if due.
   *
   * <p>Not asked of Connect here: Connect applies a seek at the start of its next poll, and the
   * poll running a rebalance (which calls preCommit and close) may still hand records fetched
   * before to put, from where the partition was; put drops them and asks for the seek
   * ({@link #rewindAlso}). A seek asked for here could also name a partition being revoked, which
   * Connect's consumer refuses.
   */
  private void rewindOrCommit(boolean always) {
    Map<TopicPartition, Long> rewind = takeOutcomes();
    if (rewind == null && always) {
      rewind = commitAndWait();
    }
    if (rewind != null) {
      keepRewind(rewind);
    } else if (!always) {
      commitIfDue();
    }
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    cycleLock.lock();
    try {
      if (failure == null && outage == null) {
        try {
          rewindOrCommit(false);
        } catch (RuntimeException e) {
          if (!rideOut(e, List.of())) {
            throw fail(e);
          }
        }
      }
      Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
      committed.forEach((tp, next) -> {
        if (assigned.contains(tp)) {
          out.put(tp, new OffsetAndMetadata(next));
        }
      });
      return out;
    } finally {
      cycleLock.unlock();
    }
  }

  /**
   * Revoked partitions: what was read of them is committed first, so their next owner goes on from
   * there; after a failure nothing is (their next owner reads again from the tables' offsets).
   */
  @Override
  public void close(Collection<TopicPartition> partitions) {
    cycleLock.lock();
    try {
      if (failure == null && outage == null) {
        rewindOrCommit(true);
      }
    } catch (RuntimeException e) {
      if (!rideOut(e, List.of())) {
        throw fail(e);
      }
    } finally {
      assigned.removeAll(partitions);
      if (outage != null) { // their next owner reads them from the tables
        partitions.forEach(outage.readAgain::remove);
        outage.opened.removeAll(partitions);
      }
      if (rewindAfterFence != null) {
        rewindAfterFence.keySet().removeAll(partitions); // Connect can seek only partitions the task owns
      }
      for (TopicPartition tp : partitions) {
        committed.remove(tp);
        seekedTo.remove(tp);
        reused.forget(tp);
        for (Map<TopicPartition, Position> positions : held.values()) {
          positions.remove(tp);
        }
      }
      cycleLock.unlock();
    }
  }

  /**
   * Arrow's allocator, after a first allocation: without the worker's JVM flags, Arrow cannot use
   * direct memory, and that is said here, naming the flags, instead of by the first batch.
   */
  private static RootAllocator directMemory() {
    RootAllocator allocator = new RootAllocator();
    try (ArrowBuf probe = allocator.buffer(8)) {
      probe.nioBuffer(0, 8); // what needs the opened java.nio (Arrow's MemoryUtil.directBuffer)
      return allocator;
    } catch (RuntimeException | LinkageError e) {
      allocator.close();
      throw new ConnectException("Arrow cannot use direct memory in this worker's JVM: start it with"
          + " KAFKA_OPTS=\"--enable-native-access=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED\""
          + " (kafka-connect/README.md, installing): " + e, e);
    }
  }

  @Override
  public void stop() {
    if (commitTimer != null) {
      commitTimer.shutdown(); // cancels the ticks; a commit in flight ends first
      try {
        commitTimer.awaitTermination(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    cycleLock.lock();
    try {
      if (commits != null) {
        commits.await(); // a cycle being committed lands: its files are complete
      }
    } catch (RuntimeException e) {
      LOG.warn("the last commit failed while stopping: {}", e.toString());
    } finally {
      try {
        if (commits != null) {
          commits.close();
        }
        closeAll();
      } finally {
        cycleLock.unlock();
      }
    }
  }

  private void closeAll() {
    for (TableSink sink : sinks.values()) {
      try {
        sink.close();
      } catch (RuntimeException e) {
        LOG.warn("closing the writer of {}: {}", sink.id(), e.toString());
      }
    }
    sinks.clear();
    if (allocator != null) {
      try {
        allocator.close();
      } catch (RuntimeException e) {
        LOG.warn("closing the allocator: {}", e.toString());
      }
    }
    if (catalog instanceof Closeable closeable) {
      try {
        closeable.close();
      } catch (IOException e) {
        LOG.warn("closing the catalog: {}", e.toString());
      }
    }
    if (metrics != null) {
      metrics.close();
    }
  }
}
