package dev.floe.iceberg;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;

/**
 * Writes the rows of one task into a table's data files: an Iceberg {@link TaskWriter} whose unit
 * is an Arrow batch. Write batches, then {@link #complete()} for a {@link WriteResult} to commit,
 * or {@link #abort()}. Files roll over at the table's {@code write.target-file-size-bytes}; on a
 * partitioned table each batch's rows fan out to the files of their partitions.
 *
 * <pre>{@code
 * NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
 * try (NativeTaskWriter writer = factory.newTaskWriter()) {
 *   writer.write(decoder, messages, BadRecordPolicy.FAIL);
 *   Commits.append(table, writer.complete(), Map.of());
 * }
 * }</pre>
 *
 * <p>Not thread-safe: one writer per task thread, except that {@link #decode} may run on a second
 * thread (one at a time) while the task thread writes.
 */
public interface NativeTaskWriter extends TaskWriter<VectorSchemaRoot> {
  /** Writes a batch whose schema is the factory's {@link NativeFileWriterFactory#arrowSchema()}. */
  @Override
  void write(VectorSchemaRoot batch);

  /** Decodes JSON messages natively and writes the good ones; the rows never become Java objects. */
  DecodeStats write(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy);

  /**
   * The first half of {@link #write(NativeJsonDecoder, MessageBatch, BadRecordPolicy)}: decodes
   * (and regroups by partition) without touching this writer's files, so it may run on one thread
   * while {@link #write(DecodedMessages)} writes an earlier batch on another -- decode batch N+1
   * while batch N encodes. Calls of {@code decode} must not overlap each other (the decoder is
   * single-threaded), and their results must be written in the order they were decoded (upserts
   * depend on it). Under {@code FAIL} a bad message throws here, and nothing of the batch is kept.
   */
  DecodedMessages decode(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy);

  /** The second half: writes rows from this writer's {@link #decode}, and closes them. */
  DecodeStats write(DecodedMessages decoded);

  /**
   * Deletes the table's rows with these keys (a batch of {@link
   * NativeFileWriterFactory#equalityDeleteArrowSchema()}): rows of earlier commits by equality
   * delete, rows this writer wrote by position. Only an upsert writer ({@link
   * NativeFileWriterFactory#newUpsertTaskWriter()}) has keys to delete by; others throw.
   */
  default void deleteKeys(VectorSchemaRoot keys) {
    throw new UnsupportedOperationException("only an upsert task writer deletes by key");
  }

  /**
   * Deletes rows given whole (a batch of {@link NativeFileWriterFactory#arrowSchema()}): in each
   * row's partition, the rows with its key, as {@link #deleteKeys} does. Only a delta writer
   * ({@link NativeFileWriterFactory#newDeltaTaskWriter()}) deletes whole rows; others throw.
   */
  default void deleteRows(VectorSchemaRoot rows) {
    throw new UnsupportedOperationException("only a delta task writer deletes whole rows");
  }

  /**
   * Memory the open data files hold natively for rows not yet written out: what a caller bounding
   * memory counts, and what {@link #flushBuffered()} frees.
   */
  long bufferedBytes();

  /**
   * Writes every open data file's buffered rows out as a row group now: memory goes down, files
   * stay open (their row groups close before the size limit).
   */
  void flushBuffered();

  /**
   * Encodes the rows every open data file holds as Arrow batches (most of {@link
   * #bufferedBytes()}) into its row group in progress, all files at once on libfloe's encode-ahead
   * threads, and waits for them. The row groups stay open, so this frees memory without the smaller
   * row groups {@link #flushBuffered()} makes. Does nothing unless the writers encode ahead.
   */
  void encodeBuffered();

  /** Closes every open file and returns all files written. The writer is done afterwards. */
  @Override
  WriteResult complete();

  /** Deletes every file this writer wrote. Idempotent; a no-op after {@link #complete()}. */
  @Override
  void abort();

  /** Aborts unless {@link #complete()} was called. */
  @Override
  default void close() {
    abort();
  }
}
