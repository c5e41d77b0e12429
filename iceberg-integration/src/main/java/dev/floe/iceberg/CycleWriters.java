package dev.floe.iceberg;

import dev.floe.arrow.BadRecordException;
import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.DecodedBatch;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.RejectedMessage;
import dev.floe.arrow.UnknownField;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.WriteResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One commit cycle's task writers for one table, as the Kafka sink's, the connector's and the
 * Flink raw path's tables use them: a decoding thread decodes each batch ({@link #decode}), a
 * writer thread writes it into the writer that decoded it ({@link #write}) and at the end
 * completes the cycle ({@link #complete}) or aborts it.
 *
 * <p>A cycle has one task writer, and one more each time schema evolution moves it to a new
 * schema ({@link TableEvolution}): the decoding thread evolves the table for what a batch carries,
 * starts a writer for the new schema and decodes the batch again for it; the writer thread writes
 * the old writer's buffered rows out when the first batch for the new one comes, and completes
 * them all into one result, so the cycle's rows land in one commit whatever the schema did. In
 * upsert mode each new writer continues the one before ({@link
 * NativeFileWriterFactory#newUpsertTaskWriterAfter}), so a key updated or deleted after the move
 * still replaces the row the old writer wrote; tombstones' keys ({@link #deleteKeys}) go to the
 * writer that takes rows at their turn, decoded for its schema.
 */
public final class CycleWriters {
  private static final Logger LOG = LoggerFactory.getLogger(CycleWriters.class);
  /**
   * Rounds of evolution one batch may start, beyond one per column of the schema: each round's
   * decode shows what the next one needs (a message stops decoding at its first value the schema
   * cannot hold, hiding its later fields and values), and each round changes the schema or ends
   * the loop, so a message whose every column needs widening still lands.
   */
  private static final int MORE_EVOLUTIONS_PER_BATCH = 8;

  /** Every task writer, in the order they started. */
  private final List<NativeTaskWriter> writers = new CopyOnWriteArrayList<>();
  /** The schema of each writer's factory, in the same order (added by the decoding thread). */
  private final List<Schema> schemas = new CopyOnWriteArrayList<>();
  /** Decoders made for evolved schemas: closed after the cycle's last batch is decoded. */
  private final List<NativeJsonDecoder> ownDecoders = new ArrayList<>();
  private final TableEvolution evolution;
  /** Upsert mode: the tombstones' keys' decoder for the first writer's schema (not owned); null appends. */
  private final NativeJsonDecoder firstKeyDecoder;
  /**
   * Upsert mode: decoders of tombstones' keys made for evolved writers' schemas, by writer. Made on
   * the writer thread when their first keys come, closed when the cycle completes or aborts.
   */
  private final Map<NativeTaskWriter, NativeJsonDecoder> ownKeyDecoders = new IdentityHashMap<>();
  /** The factory of each writer after the first (written by the decoding thread, read by the writer thread). */
  private final Map<NativeTaskWriter, NativeFileWriterFactory> evolvedFactories = new ConcurrentHashMap<>();
  /** The decoding thread's: the factory, writer and decoder of the next batches. */
  private NativeFileWriterFactory factory;
  private NativeTaskWriter decodingWriter;
  private NativeJsonDecoder decoder;
  /** The writer thread's: the writer it wrote last. */
  private NativeTaskWriter writing;

  /**
   * @param decoder the table's decoder for {@code factory}'s schema (not owned: the caller closes it)
   * @param keyDecoder in upsert mode, the decoder of tombstones' keys (JSON objects of the identifier
   *     fields) for {@code factory}'s schema (not owned); null to append
   * @param evolution the table's schema evolution, or null without
   */
  public CycleWriters(NativeFileWriterFactory factory, NativeJsonDecoder decoder, NativeJsonDecoder keyDecoder,
      TableEvolution evolution) {
    this.factory = factory;
    this.decoder = decoder;
    this.firstKeyDecoder = keyDecoder;
    this.evolution = evolution;
    this.decodingWriter = keyDecoder != null ? factory.newUpsertTaskWriter() : factory.newTaskWriter();
    this.writing = decodingWriter;
    writers.add(decodingWriter);
    schemas.add(factory.schema());
  }

  /** The cycle's first writer: without evolution, its only one. */
  public NativeTaskWriter firstWriter() {
    return writers.getFirst();
  }

  /**
   * On the decoding thread: decodes a batch for the writer {@link #decodingWriter()} names
   * afterwards. Without evolution, under {@code policy}, and {@code notes} takes the unknown
   * fields. With it, while the batch carries fields the table lacks or values too wide for their
   * column, evolves the table, moves the cycle to a writer for the new schema and decodes again;
   * then applies {@code policy} (FAIL throws for the first bad record); what stays unknown goes to
   * {@code notes}.
   *
   * @throws BadRecordException under FAIL, for the batch's first bad record
   */
  public DecodedMessages decode(MessageBatch messages, BadRecordPolicy policy, UnknownFieldNotes notes) {
    if (evolution == null) {
      DecodedMessages decoded = decodingWriter.decode(decoder, messages, policy);
      notes.take(decoder);
      return decoded;
    }
    long started = System.nanoTime();
    int schemaBefore = factory.schema().schemaId();
    for (int round = 1; ; round++) {
      // Whatever the policy: a value too wide for now must not fail the batch before evolving.
      DecodedMessages decoded = decodingWriter.decode(decoder, messages, BadRecordPolicy.DEAD_LETTER);
      List<UnknownField> report;
      NativeFileWriterFactory next;
      try {
        report = decoder.takeUnknownFields();
        next = round <= maxRounds() ? evolution.evolve(factory, report) : null;
      } catch (RuntimeException | Error e) { // a refused or failed evolution: the rows go unwritten
        decoded.close();
        throw e;
      }
      if (next != null) {
        decoded.close();
        moveTo(next);
        continue;
      }
      if (factory.schema().schemaId() != schemaBefore) { // not a move for table properties alone
        evolution.evolved(System.nanoTime() - started);
      }
      notes.note(report);
      if (policy == BadRecordPolicy.FAIL && !decoded.stats().rejected().isEmpty()) {
        RejectedMessage first = decoded.stats().rejected().getFirst();
        decoded.close();
        throw new BadRecordException(first);
      }
      return decoded;
    }
  }

  private int maxRounds() {
    return MORE_EVOLUTIONS_PER_BATCH + leafCount(factory.arrowSchema().getFields());
  }

  private static int leafCount(List<org.apache.arrow.vector.types.pojo.Field> fields) {
    int leaves = 0;
    for (org.apache.arrow.vector.types.pojo.Field field : fields) {
      leaves += field.getChildren().isEmpty() ? 1 : leafCount(field.getChildren());
    }
    return leaves;
  }

  private void moveTo(NativeFileWriterFactory next) {
    NativeJsonDecoder nextDecoder = NativeJsonDecoder.create(next.arrowSchema(), TableEvolution.DESCRIBING);
    ownDecoders.add(nextDecoder);
    factory = next;
    decoder = nextDecoder;
    decodingWriter = firstKeyDecoder != null ? next.newUpsertTaskWriterAfter(decodingWriter) : next.newTaskWriter();
    evolvedFactories.put(decodingWriter, next);
    writers.add(decodingWriter);
    schemas.add(next.schema());
  }

  /**
   * On the decoding thread, before a batch whose records another thread evolved the table for
   * (with schema evolution): moves the cycle to the table's current schema if it is not on it.
   */
  public void followEvolvedTable() {
    if (evolution == null) {
      return;
    }
    long started = System.nanoTime();
    NativeFileWriterFactory next = evolution.current(factory);
    if (next != null) {
      boolean newSchema = next.schema().schemaId() != factory.schema().schemaId();
      moveTo(next);
      if (newSchema) { // not a move for table properties alone
        evolution.evolved(System.nanoTime() - started);
      }
    }
  }

  /** On the decoding thread: the writer the last {@link #decode} decoded for. */
  public NativeTaskWriter decodingWriter() {
    return decodingWriter;
  }

  /** On the decoding thread: the decoder of the cycle's next batch (for the single-thread path). */
  public NativeJsonDecoder decoder() {
    return decoder;
  }

  /**
   * On the writer thread: writes rows into {@code into}, the writer that decoded them. When that
   * is a new writer, the one before writes its buffered rows out first (its files stay open until
   * the cycle completes), so only one writer of the cycle buffers rows at a time.
   *
   * @return the rows' stats
   */
  public DecodeStats write(NativeTaskWriter into, DecodedMessages rows) {
    if (writing != into) {
      writing.flushBuffered();
      writing = into;
    }
    return into.write(rows);
  }

  /**
   * On the writer thread, in upsert mode: deletes the rows of tombstones' keys, in order with the
   * rows written before them, through the writer that takes rows now ({@link #writing}), decoding
   * them for its schema under {@code policy}.
   *
   * @return the keys' stats: rows are the keys deleted
   * @throws BadRecordException under FAIL, for the batch's first key that does not decode
   */
  public DecodeStats deleteKeys(MessageBatch keys, BadRecordPolicy policy, BufferAllocator allocator) {
    if (firstKeyDecoder == null) {
      throw new IllegalStateException("tombstones delete keys in upsert mode only");
    }
    try (DecodedBatch decoded = keyDecoderFor(writing).decode(keys, policy, allocator)) {
      writing.deleteKeys(decoded.root());
      List<RejectedMessage> rejected = decoded.rejected().stream().map(CycleWriters::asKey).toList();
      return new DecodeStats(decoded.root().getRowCount(), decoded.rejectedCount(), rejected);
    } catch (BadRecordException e) {
      BadRecordException key = new BadRecordException(asKey(e.rejected()));
      key.addSuppressed(e); // kept, but not as a cause: one-line errors would repeat its reason as a value's
      throw key;
    }
  }

  /** A rejected key, said to be one: its reason alone reads as if the record's value were bad. */
  private static RejectedMessage asKey(RejectedMessage key) {
    return new RejectedMessage(
        key.index(), "the tombstone's key: " + key.reason(), key.payload(), key.source(), key.position());
  }

  private NativeJsonDecoder keyDecoderFor(NativeTaskWriter writer) {
    NativeFileWriterFactory evolved = evolvedFactories.get(writer);
    if (evolved == null) {
      return firstKeyDecoder;
    }
    return ownKeyDecoders.computeIfAbsent(writer,
        w -> NativeJsonDecoder.create(evolved.equalityDeleteArrowSchema(), JsonDecoderConfig.defaults()));
  }

  /** On the writer thread: the writer that buffers the cycle's rows now. */
  public NativeTaskWriter writing() {
    return writing;
  }

  /**
   * On the writer thread: completes the writers, in order, into one result with the schemas they
   * wrote. If one fails, the files the others completed are deleted through {@code io}, and the
   * rest aborted.
   */
  public CycleFiles complete(FileIO io) {
    closeOwnKeyDecoders();
    WriteResult.Builder all = WriteResult.builder();
    List<WriteResult> done = new ArrayList<>();
    try {
      for (NativeTaskWriter writer : writers) {
        WriteResult files = writer.complete();
        done.add(files);
        all.add(files);
      }
    } catch (RuntimeException e) {
      for (WriteResult files : done) {
        try {
          Commits.deleteUncommitted(io, files);
        } catch (RuntimeException cleanup) {
          LOG.warn("could not delete every uncommitted file: {}", cleanup.getMessage());
        }
      }
      abort();
      throw e;
    }
    return new CycleFiles(all.build(), schemas);
  }

  /** On the writer thread: deletes every file the cycle's writers wrote (idempotent). */
  public void abort() {
    closeOwnKeyDecoders();
    for (NativeTaskWriter writer : writers) {
      try {
        writer.abort();
      } catch (RuntimeException e) {
        LOG.warn("could not delete every uncommitted file: {}", e.getMessage());
      }
    }
  }

  private void closeOwnKeyDecoders() {
    ownKeyDecoders.values().forEach(NativeJsonDecoder::close);
    ownKeyDecoders.clear();
  }

  /** On the decoding thread, after the cycle's last batch: closes the decoders evolution made. */
  public void closeOwnDecoders() {
    ownDecoders.forEach(NativeJsonDecoder::close);
    ownDecoders.clear();
  }
}
