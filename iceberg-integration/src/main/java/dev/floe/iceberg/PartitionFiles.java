package dev.floe.iceberg;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.PartitionedBatch;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.StructLike;

/**
 * The data files of one partition: writes to one open file at a time and starts the next when it
 * reaches the target file size, as Iceberg's rolling writers do (not named after them: it is not
 * Iceberg's {@code RollingDataWriter} contract). The building block of the task writers; not
 * thread-safe.
 */
final class PartitionFiles {
  private final NativeFileWriterFactory factory;
  private final StructLike partition;
  private final long targetFileSize;
  private final List<DataFile> completed = new ArrayList<>();
  private NativeDataWriter current;

  PartitionFiles(NativeFileWriterFactory factory, StructLike partition, long targetFileSize) {
    this.factory = factory;
    this.partition = partition;
    this.targetFileSize = targetFileSize;
  }

  void write(VectorSchemaRoot batch) {
    writer().write(batch);
    rollIfFull();
  }

  /** Writes group {@code group} of a regrouped batch. */
  void write(PartitionedBatch batch, int group) {
    writer().write(batch, group);
    rollIfFull();
  }

  /** Decodes and writes JSON messages without the batch crossing back into Java. */
  DecodeStats write(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy) {
    DecodeStats stats = writer().write(decoder, messages, policy);
    rollIfFull();
    return stats;
  }

  /** The file rows go to next (opened on first use); for callers tracking row positions. */
  NativeDataWriter writer() {
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

  /**
   * Finishes the open file, if any; the next write starts a new one. A file without rows (its
   * writes refused, or every message rejected) is deleted, not kept, as Iceberg's rolling writers
   * delete theirs: before, it was committed as an empty data file (helper-85).
   */
  void closeCurrent() {
    if (current != null) {
      NativeDataWriter closing = current;
      current = null;
      if (closing.rowCount() == 0) {
        closing.abort();
        return;
      }
      closing.close();
      completed.add(closing.dataFile());
    }
  }

  /** Memory the open file holds for rows not yet written out. */
  long bufferedBytes() {
    return current == null ? 0 : current.bufferedBytes();
  }

  /** Writes the open file's buffered rows out as a row group now. */
  void flushBuffered() {
    if (current != null) {
      current.flushRowGroup();
    }
  }

  /** Starts encoding the open file's held rows, before {@link #complete()} finishes it. */
  void encodeHeld() {
    if (current != null) {
      current.encodeHeld();
    }
  }

  /** Waits for what {@link #encodeHeld()} sent; the open file's row group stays open. */
  void awaitEncoded() {
    if (current != null) {
      current.awaitEncoded();
    }
  }

  boolean hasOpenFile() {
    return current != null;
  }

  /** Finishes the open file and returns every file written. */
  List<DataFile> complete() {
    closeCurrent();
    return completed;
  }

  /** Discards the open file and deletes the finished ones. */
  void abort() {
    if (current != null) {
      current.abort();
      current = null;
    }
    completed.forEach(f -> factory.io().deleteFile(f.location()));
    completed.clear();
  }
}
