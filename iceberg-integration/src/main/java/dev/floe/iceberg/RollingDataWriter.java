package dev.floe.iceberg;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.WriteResult;

/**
 * Writes the rows of one task into data files of one partition (or an unpartitioned table),
 * rolling to a new file when the current one reaches the table's {@code
 * write.target-file-size-bytes} -- the shape of Iceberg's {@code TaskWriter}: write, then {@link
 * #complete()} for a {@link WriteResult}, or {@link #abort()}.
 *
 * <pre>{@code
 * NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
 * try (NativeTaskWriter writer = factory.newTaskWriter(null)) {
 *   writer.write(decoder, messages, BadRecordPolicy.FAIL);
 *   Commits.append(table, writer.complete(), Map.of());
 * }
 * }</pre>
 */
public final class NativeTaskWriter implements Closeable {
  private final NativeFileWriterFactory factory;
  private final StructLike partition;
  private final long targetFileSize;
  private final List<DataFile> completed = new ArrayList<>();
  private NativeDataWriter current;
  private boolean done;

  NativeTaskWriter(NativeFileWriterFactory factory, StructLike partition, long targetFileSize) {
    this.factory = factory;
    this.partition = partition;
    this.targetFileSize = targetFileSize;
  }

  public void write(VectorSchemaRoot batch) {
    writer().write(batch);
    rollIfFull();
  }

  /** Decodes and writes JSON messages without the batch crossing back into Java. */
  public DecodeStats write(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy) {
    DecodeStats stats = writer().write(decoder, messages, policy);
    rollIfFull();
    return stats;
  }

  private NativeDataWriter writer() {
    if (done) {
      throw new IllegalStateException("the task writer is already complete or aborted");
    }
    if (current == null) {
      current = factory.newDataWriter(partition);
    }
    return current;
  }

  private void rollIfFull() {
    if (current.length() >= targetFileSize) {
      closeCurrent();
    }
  }

  private void closeCurrent() {
    if (current != null) {
      current.close();
      completed.add(current.dataFile());
      current = null;
    }
  }

  /** Closes the open file and returns every data file written. */
  public WriteResult complete() {
    if (done) {
      throw new IllegalStateException("the task writer is already complete or aborted");
    }
    closeCurrent();
    done = true;
    return WriteResult.builder().addDataFiles(completed).build();
  }

  /** Deletes every file this writer wrote. */
  public void abort() {
    if (!done) {
      done = true;
      if (current != null) {
        current.abort();
        current = null;
      }
      completed.forEach(f -> factory.io().deleteFile(f.location()));
    }
  }

  /** Aborts unless {@link #complete()} was called. */
  @Override
  public void close() {
    abort();
  }
}
