package dev.floe.connect;

import dev.floe.arrow.BadRecordException;
import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.RejectedMessage;
import dev.floe.iceberg.CycleFiles;
import dev.floe.iceberg.CycleWriters;
import dev.floe.kafka.sink.FollowedTable;
import dev.floe.iceberg.TableEvolution;
import dev.floe.iceberg.UnknownFieldNotes;
import dev.floe.iceberg.DecodedMessages;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.NativeTaskWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one task writes into one table during one commit cycle. The task thread packs record
 * values into off-heap message batches; two threads of the table's own take each full batch on:
 * a decode thread decodes it natively, a batch ahead of the writer thread that encodes it into the
 * cycle's task writer, while the task thread fills the next (two message batches per table, and at
 * most two decoded batches waiting for the writer). In upsert mode a tombstone deletes its key's
 * row: its key goes into a batch of keys, which passes the decode thread too, so that it is
 * written in record order with the values around it.
 *
 * <p>With {@code iceberg.tables.evolve-schema-enabled}, the decode thread evolves the table for
 * what a batch carries and the table lacks, and the cycle goes on in a writer for the new schema
 * ({@link CycleWriters}): the batch's new fields land in the same commit.
 *
 * <p>Bad records: under {@code errors.tolerance=none} the first one fails the cycle, naming topic,
 * partition, offset and reason; under {@code all} each is handed to Connect's {@link
 * BadRecords} (dead-letter queue, log) and the rest of its batch is written.
 */
final class TableSink implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TableSink.class);

  private final TableIdentifier id;
  private final Table table;
  /** The same table, followed at each cycle's start (schema and spec). */
  private final FollowedTable followed;
  private final ConnectorSettings settings;
  private final int taskIndex;
  /**
   * The decoders for the followed table's schema as of the last cycle's start; null while released
   * (a decoder keeps its last batch's buffers).
   */
  private Decoders decoders;
  private final BufferAllocator allocator;
  private final boolean upsert;
  private final int batchRecords;
  private final long batchBytes;
  private final long bufferBytes;
  private final BadRecords badRecords;
  private final TaskMetrics metrics;
  /** Decodes value batches; hands every batch on to the writer thread in order. Null while released. */
  private ExecutorService decodeThread;
  /**
   * Encodes into the cycle's task writer, completes and aborts it: the only thread touching its
   * files. Null while released.
   */
  private ExecutorService writerThread;
  /** When a record was last added ({@link System#nanoTime}). */
  private long lastRecordNanos = System.nanoTime();
  /** Decoded batches waiting for the writer thread (their Arrow memory), at most two. */
  private final Semaphore decodedWaiting = new Semaphore(2);
  /** Spare batches; taking one waits while both are in use (the decode thread is a batch behind). */
  private final BlockingQueue<Batch> spare = new LinkedBlockingQueue<>();
  private final Map<TopicPartition, PartitionSource> sources = new HashMap<>();
  /** Fields the table lacks, counted and named (the decode thread only). */
  private final UnknownFieldNotes unknownFields;
  /** Schema evolution (the decode thread's), or null without. */
  private final TableEvolution evolution;
  /** Loads another instance of the table (for the task thread's evolution from Connect schemas). */
  private final Supplier<Table> loader;
  /** The task thread's instance for evolving the table from Connect schemas; loaded when first needed. */
  private Table evolvedFromConnect;
  /** Connect schemas (by identity) checked against the schema the cycles write, {@link #checkedSchemaId}. */
  private final java.util.Set<org.apache.kafka.connect.data.Schema> checkedConnectSchemas =
      java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
  private int checkedSchemaId = -1;
  /**
   * The table's schema as the task thread last saw it: read at the cycle's start, then the schema
   * each evolution from a Connect schema committed. A Connect schema that asked for a change is so
   * checked again after it; an outside ALTER TABLE that undoes the change brings back the earlier
   * schema with its id, and the schemas checked against the new one no longer count.
   */
  private org.apache.iceberg.Schema knownSchema;
  private org.apache.kafka.connect.data.Schema lastConnectSchema;
  /** The record being added asked the table to evolve: its batch is marked {@link Batch#afterEvolution}. */
  private boolean evolvedForRecord;
  private TopicPartition lastPartition;
  private PartitionSource lastSource;
  private Batch open;
  /** The cycle's writers; null before its first record. */
  private CycleWriters writers;
  /** The cycle's first failure on the writer thread; the cycle then writes nothing more. */
  private volatile Throwable failure;

  /** One decode batch: values (or, in upsert mode, the keys of tombstones) and their records. */
  private static final class Batch {
    final MessageBatch messages = new MessageBatch();
    final List<SinkRecord> records = new ArrayList<>();
    boolean keys;
    /** Holds a record the task thread evolved the table for: its cycle must move to the new schema first. */
    boolean afterEvolution;

    void clear() {
      messages.clear();
      records.clear();
      afterEvolution = false;
    }
  }

  /** Values' decoder, and in upsert mode the tombstone keys' decoder, for one schema. */
  private record Decoders(NativeJsonDecoder values, NativeJsonDecoder keys) {
    static Decoders of(NativeFileWriterFactory factory, boolean upsert, boolean evolve) {
      JsonDecoderConfig values = evolve
          ? TableEvolution.DESCRIBING
          : JsonDecoderConfig.defaults().withReportUnknownFields(true);
      return new Decoders(NativeJsonDecoder.create(factory.arrowSchema(), values),
          upsert ? NativeJsonDecoder.create(factory.equalityDeleteArrowSchema(), JsonDecoderConfig.defaults()) : null);
    }

    void close() {
      values.close();
      if (keys != null) {
        keys.close();
      }
    }
  }

  /**
   * @param table the table commits go to
   * @param loader loads the same table again: an instance this sink refreshes at each cycle's
   *     start, and one schema evolution refreshes (loaded when first needed)
   */
  TableSink(TableIdentifier id, Table table, Supplier<Table> loader, ConnectorSettings settings, int taskIndex,
      BufferAllocator allocator, BadRecords badRecords, TaskMetrics metrics) {
    this.id = id;
    this.table = table;
    this.settings = settings;
    this.taskIndex = taskIndex;
    this.allocator = allocator;
    this.upsert = settings.upsert();
    this.followed = new FollowedTable(loader.get(), this::writerFactory);
    this.decoders = Decoders.of(followed.factory(), upsert, settings.evolveSchema());
    this.batchRecords = settings.batchRecords();
    this.batchBytes = settings.batchBytes();
    this.bufferBytes = settings.bufferBytes();
    this.badRecords = badRecords;
    this.metrics = metrics;
    this.unknownFields = new UnknownFieldNotes(id, metrics::unknownFieldValues);
    this.evolution = settings.evolveSchema()
        ? new TableEvolution(loader, this::writerFactory, metrics::schemaEvolved)
        : null;
    this.loader = loader;
    start();
  }

  /**
   * On the task thread, with schema evolution, before a Struct value is queued: evolves the table
   * for what the value's Connect schema asks of it ({@link ConnectSchemaEvolution}: the types come
   * from the schema, not from the JSON it is written as); the batch the value goes into then has
   * the decode thread move its cycle to the new schema first. Each Connect schema is checked once
   * per table schema. Identifier fields are not made optional (Iceberg requires them), and fields
   * of struct types with no fields are left out (Parquet cannot write them).
   */
  private void followConnectSchema(org.apache.kafka.connect.data.Schema valueSchema) {
    if (evolution == null || valueSchema == null
        || valueSchema.type() != org.apache.kafka.connect.data.Schema.Type.STRUCT) {
      return;
    }
    // A new table schema (ours, another task's, an outside ALTER TABLE's) checks every Connect schema again
    org.apache.iceberg.Schema writing = knownSchema;
    if (writing.schemaId() != checkedSchemaId) {
      checkedConnectSchemas.clear();
      checkedSchemaId = writing.schemaId();
      lastConnectSchema = null;
    }
    if (valueSchema == lastConnectSchema) {
      return;
    }
    if (checkedConnectSchemas.add(valueSchema)) {
      if (ConnectSchemaEvolution.asksAnything(writing, valueSchema)) {
        if (evolvedFromConnect == null) {
          evolvedFromConnect = loader.get();
        }
        ConnectSchemaEvolution.evolve(evolvedFromConnect, valueSchema, settings.forceOptional());
        evolvedForRecord = true; // also when another task made the change first
        knownSchema = evolvedFromConnect.schema();
      }
      if (checkedConnectSchemas.size() > 1000) {
        checkedConnectSchemas.clear(); // schemas made anew per record: check them each time, without growing
      }
    }
    lastConnectSchema = valueSchema;
  }

  /** Starts the table's two threads and makes its two message batches. */
  private void start() {
    decodeThread = thread("floe-connect-decode-" + id);
    writerThread = thread("floe-connect-writer-" + id);
    spare.add(new Batch());
    spare.add(new Batch());
  }

  /** Whether {@link #releaseIdle} gave back the threads and batches ({@link #add} takes them again). */
  boolean released() {
    return decodeThread == null;
  }

  /** After {@link #releaseIdle}: decoders for the followed table's schema, threads and batches again. */
  private void restart() {
    decoders = Decoders.of(followed.factory(), upsert, settings.evolveSchema());
    start();
  }

  /**
   * Gives back the table's threads, message batches and decoders (each batch grown to a batch's
   * size, 4 MiB by default, and each decoder holding about as much from its last batch) when it
   * has taken no record for {@code idleNanos}: with dynamic routing a task may write hundreds of
   * tables in turn, and each would otherwise hold them until the task stops. Its next record takes
   * them again. Only between cycles the table had no part in, when everything handed to its
   * threads is done: the task calls it after awaiting the commit before.
   */
  void releaseIdle(long idleNanos) {
    if (released() || open != null || writers != null || System.nanoTime() - lastRecordNanos < idleNanos) {
      return;
    }
    if (spare.size() != 2) {
      return; // a batch is still on its way back from the threads: next time
    }
    // The decode thread hands work to the writer thread: it ends first.
    decodeThread.shutdown();
    awaitTermination(decodeThread);
    writerThread.shutdown();
    awaitTermination(writerThread);
    decodeThread = null;
    writerThread = null;
    for (Batch b : spare) {
      b.messages.close();
    }
    spare.clear();
    decoders.close(); // retired ones were closed by the threads; the last cycle's own ones at its seal
    decoders = null;
  }

  private void awaitTermination(ExecutorService thread) {
    try {
      if (!thread.awaitTermination(1, TimeUnit.MINUTES)) {
        throw new ConnectException("table " + id + "'s idle threads did not end within a minute");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted while ending table " + id + "'s idle threads", e);
    }
  }

  /** A writer factory for {@code current}'s schema and spec; checks that it can upsert if asked to. */
  private NativeFileWriterFactory writerFactory(Table current) {
    NativeFileWriterFactory made;
    try {
      made = NativeFileWriterFactory.forTable(current, allocator, taskIndex, System.nanoTime(), settings.writeProperties());
    } catch (IllegalArgumentException e) { // a table floe cannot write as it asks (a format other than Parquet)
      throw new ConnectException(e.getMessage(), e);
    }
    if (upsert) {
      made.newUpsertTaskWriter().abort(); // checks now that the table has identifier fields
    }
    return made;
  }

  /**
   * At a cycle's start: reads the table's current schema and partition spec, and when either
   * changed (an ALTER TABLE while the connector runs), writes this cycle and the next ones with
   * them; columns are matched by field id. The cycle before keeps its decoders until its last
   * batch has passed them (both threads run their tasks in order).
   */
  private void followTable() {
    NativeFileWriterFactory next = followed.refresh();
    if (next == null) {
      return;
    }
    Decoders retired = decoders;
    decoders = Decoders.of(next, upsert, settings.evolveSchema());
    // Values are decoded on the decode thread, keys on the writer thread after it.
    decodeThread.execute(() -> writerThread.execute(retired::close));
  }

  /** The cycle's writers; its first record starts it, on the table's latest schema. */
  private CycleWriters cycle() {
    if (writers == null) {
      followTable();
      writers = new CycleWriters(followed.factory(), decoders.values(), decoders.keys(), evolution);
      knownSchema = followed.factory().schema();
    }
    return writers;
  }

  private static ExecutorService thread(String name) {
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  TableIdentifier id() {
    return id;
  }

  Table table() {
    return table;
  }

  /** Adds a record (of partition {@code tp}); in upsert mode a null value adds its key, to be deleted. */
  void add(SinkRecord record, TopicPartition tp, byte[] value, byte[] key) {
    throwIfFailed();
    if (released()) {
      restart();
    }
    cycle(); // first: a new cycle follows the table, whose schema Connect schemas are checked against
    if (value != null) {
      followConnectSchema(record.valueSchema());
    }
    lastRecordNanos = System.nanoTime();
    boolean keys = value == null;
    if (open != null && open.keys != keys) {
      flush();
    }
    if (open == null) {
      open = take();
      open.keys = keys;
    }
    if (tp != lastPartition) { // the task passes one instance per run of a partition's records
      lastSource = sources.computeIfAbsent(tp, PartitionSource::new);
      lastPartition = tp;
    }
    open.messages.add(keys ? key : value, lastSource, record.originalKafkaOffset());
    if (evolvedForRecord) {
      open.afterEvolution = true;
      evolvedForRecord = false;
    }
    if (badRecords.tolerated()) {
      // Kept only to hand a bad one to Connect's reporter; under errors.tolerance=none the first bad
      // record fails the cycle by its position alone, and holding every record for a batch's
      // lifetime would make each young collection copy them.
      open.records.add(record);
    }
    if (open.messages.size() >= batchRecords || open.messages.byteSize() >= batchBytes) {
      flush();
    }
  }

  private Batch take() {
    try {
      return spare.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted while waiting for table " + id + "'s writer", e);
    }
  }

  /** Hands the open batch to the writer thread. */
  void flush() {
    Batch batch = open;
    open = null;
    if (batch == null || batch.messages.size() == 0) {
      if (batch != null) {
        spare.add(batch);
      }
      return;
    }
    CycleWriters cycle = cycle();
    decodeThread.execute(() -> {
      if (batch.keys) {
        writerThread.execute(() -> onWriterThread(batch, () -> deleteKeys(cycle, batch)));
      } else {
        decodeAndHandOn(cycle, batch);
      }
    });
  }

  /** On the decode thread: decodes a value batch and queues its rows on the writer thread. */
  private void decodeAndHandOn(CycleWriters cycle, Batch batch) {
    DecodedMessages decoded = null;
    NativeTaskWriter target = null;
    try {
      if (failure == null) {
        decodedWaiting.acquireUninterruptibly();
        try {
          if (batch.afterEvolution) {
            cycle.followEvolvedTable();
          }
          decoded = cycle.decode(batch.messages, policy(), unknownFields);
          target = cycle.decodingWriter();
        } finally {
          if (decoded == null) {
            decodedWaiting.release();
          }
        }
        report(batch, decoded.stats().rejected());
      }
    } catch (Throwable t) {
      if (failure == null) {
        failure = t;
      }
    } finally {
      recycle(batch); // decoding copied what it kept
    }
    if (decoded != null) {
      DecodedMessages rows = decoded;
      NativeTaskWriter into = target;
      writerThread.execute(() -> {
        try (rows) {
          if (failure == null) {
            metrics.rowsWritten(cycle.write(into, rows).rows());
            flushBufferedIfFull(into);
          }
        } catch (Throwable t) {
          if (failure == null) {
            failure = t;
          }
        } finally {
          decodedWaiting.release();
        }
      });
    }
  }

  /** Runs {@code work} for {@code batch} on the writer thread, then recycles the batch. */
  private void onWriterThread(Batch batch, Runnable work) {
    try {
      if (failure == null) {
        work.run();
      }
    } catch (Throwable t) {
      if (failure == null) {
        failure = t;
      }
    } finally {
      recycle(batch);
    }
  }

  private void deleteKeys(CycleWriters cycle, Batch batch) {
    DecodeStats keys = cycle.deleteKeys(batch.messages, policy(), allocator);
    metrics.rowsWritten(keys.rows());
    report(batch, keys.rejected());
    flushBufferedIfFull(cycle.writing());
  }

  private BadRecordPolicy policy() {
    return badRecords.tolerated() ? BadRecordPolicy.DEAD_LETTER : BadRecordPolicy.FAIL;
  }

  private void report(Batch batch, List<RejectedMessage> rejected) {
    for (RejectedMessage bad : rejected) {
      badRecords.report(batch.records.get(bad.index()), "table " + id + ": " + bad.reason());
    }
  }

  /**
   * Over the buffer limit, the rows the open files hold as Arrow batches are encoded into their
   * row groups (which stay open); if that is not enough, the row groups are written out now.
   */
  private void flushBufferedIfFull(NativeTaskWriter cycle) {
    if (cycle.bufferedBytes() > bufferBytes) {
      cycle.encodeBuffered();
      if (cycle.bufferedBytes() > bufferBytes) {
        cycle.flushBuffered();
      }
    }
  }

  private void recycle(Batch batch) {
    batch.clear();
    spare.add(batch);
  }

  /**
   * Ends the cycle without waiting: once the writer thread has written the cycle's last batch, it
   * closes the cycle's files, and the future completes with them (empty if nothing was written). A
   * failed cycle's files are deleted and the future completes with its failure. Records added from
   * now on go to the next cycle.
   */
  CompletableFuture<CycleFiles> seal() {
    flush();
    CycleWriters cycle = writers;
    writers = null;
    CompletableFuture<CycleFiles> result = new CompletableFuture<>();
    Runnable complete = () -> {
      Throwable t = failure;
      try {
        if (t != null) {
          if (cycle != null) {
            cycle.abort();
          }
          result.completeExceptionally(failed(t));
        } else {
          result.complete(cycle == null ? CycleFiles.none() : cycle.complete(table.io()));
        }
      } catch (Throwable e) {
        if (cycle != null) {
          cycle.abort();
        }
        result.completeExceptionally(failed(e));
      }
    };
    // Each batch the decode thread takes queues its write before the next task: queued from
    // there, the completion runs after the cycle's last write.
    decodeThread.execute(() -> {
      if (cycle != null) {
        cycle.closeOwnDecoders();
      }
      writerThread.execute(complete);
    });
    return result;
  }

  /** Drops the cycle: unwritten batches and the files written so far (nothing of it was committed). */
  void abort() {
    if (released()) {
      return; // nothing open, nothing written: released only between cycles it had no part in
    }
    if (open != null) {
      open.clear();
      spare.add(open);
      open = null;
    }
    CycleWriters cycle = writers;
    writers = null;
    drainDecodeThread();
    await(writerThread.submit(() -> {
      if (cycle != null) {
        cycle.abort();
        cycle.closeOwnDecoders();
      }
      failure = null;
      return null;
    }));
  }

  /** Waits until every batch handed over has passed the decode thread (and so is queued on the writer thread). */
  private void drainDecodeThread() {
    await(decodeThread.submit(() -> null));
  }

  private <T> T await(Future<T> future) {
    try {
      return future.get();
    } catch (ExecutionException e) {
      throw failed(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectException("interrupted while waiting for table " + id + "'s writer", e);
    }
  }

  void throwIfFailed() {
    Throwable t = failure;
    if (t != null) {
      throw failed(t);
    }
  }

  private ConnectException failed(Throwable t) {
    if (t instanceof BadRecordException bad) {
      return new ConnectException("bad record for table " + id + " (errors.tolerance=none): " + bad.getMessage(), bad);
    }
    return t instanceof ConnectException c ? c : new ConnectException("writing table " + id + " failed: " + t, t);
  }

  @Override
  public void close() {
    try {
      abort();
    } finally {
      if (released() || threadsEnded()) {
        if (decoders != null) {
          decoders.close(); // retired ones were closed by the threads, which finish their queues first
        }
        for (Batch b : spare) {
          b.messages.close();
        }
      } else {
        // An abort cut short (interrupted) can leave work queued: native memory a thread may still
        // use is not freed under it.
        LOG.error("table {}'s threads did not end within a minute of closing: its decoders and batches are not freed",
            id);
      }
    }
  }

  /**
   * Ends the two threads, waiting up to a minute for what they have queued, also when interrupted.
   * The decode thread hands work to the writer thread: it ends first, or the writer thread would
   * refuse what it still hands over.
   */
  private boolean threadsEnded() {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    boolean interrupted = false;
    try {
      for (ExecutorService thread : List.of(decodeThread, writerThread)) {
        thread.shutdown();
        while (!thread.isTerminated()) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return false;
          }
          try {
            thread.awaitTermination(left, TimeUnit.NANOSECONDS);
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
      }
      return true;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
