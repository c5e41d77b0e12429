package dev.floe.iceberg;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import java.io.Closeable;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.io.WriteResult;

/**
 * Writes the rows of one task into a table's data files -- the shape of Iceberg's {@code
 * TaskWriter}: write batches, then {@link #complete()} for a {@link WriteResult} to commit, or
 * {@link #abort()}. Files roll over at the table's {@code write.target-file-size-bytes}; on a
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
 * <p>Not thread-safe: one writer per task thread.
 */
public interface NativeTaskWriter extends Closeable {
  /** Writes a batch whose schema is the factory's {@link NativeFileWriterFactory#arrowSchema()}. */
  void write(VectorSchemaRoot batch);

  /** Decodes JSON messages natively and writes the good ones; the rows never become Java objects. */
  DecodeStats write(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy);

  /** Closes every open file and returns all files written. The writer is done afterwards. */
  WriteResult complete();

  /** Deletes every file this writer wrote. Idempotent; a no-op after {@link #complete()}. */
  void abort();

  /** Aborts unless {@link #complete()} was called. */
  @Override
  default void close() {
    abort();
  }
}
