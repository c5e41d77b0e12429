package dev.floe.iceberg;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.NativePartitioner;
import dev.floe.arrow.PartitionedBatch;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.io.WriteResult;

/**
 * The task writer of a partitioned table: libfloe applies the spec's transforms to each batch and
 * regroups its rows, and each partition's rows go to that partition's rolling file (Iceberg's
 * {@code PartitionedFanoutWriter}). Rows need not arrive sorted by partition.
 *
 * <p>Memory: every open file buffers its current row group natively, so the bound is about {@code
 * open files x min(write.parquet.row-group-size-bytes, write.target-file-size-bytes)} encoded
 * bytes. {@code maxOpenFiles} caps the open files: past it, the least recently written file is
 * finished (its partition starts a new file when its rows come back), trading more files for
 * bounded memory.
 */
final class FanoutTaskWriter implements NativeTaskWriter {
  private final NativeFileWriterFactory factory;
  private final PartitionSpec spec;
  private final NativePartitioner partitioner;
  private final BufferAllocator allocator;
  private final int maxOpenFiles;
  /** Access-ordered, so the first entry with an open file is the least recently written. */
  private final PartitionMap<PartitionFiles> writers;
  private int openFiles;
  private boolean done;

  FanoutTaskWriter(
      NativeFileWriterFactory factory, PartitionSpec spec, BufferAllocator allocator, int maxOpenFiles) {
    this.factory = factory;
    this.spec = spec;
    this.allocator = allocator;
    this.maxOpenFiles = maxOpenFiles;
    this.writers = new PartitionMap<>(spec, true);
    this.partitioner =
        NativePartitioner.create(factory.arrowSchema(), PartitionValues.fields(spec));
  }

  @Override
  public void write(VectorSchemaRoot batch) {
    ensureOpen();
    try (PartitionedBatch split = partitioner.split(batch, allocator)) {
      writeGroups(split);
    }
  }

  @Override
  public DecodeStats write(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy) {
    return write(decode(decoder, messages, policy));
  }

  /** Decodes and regroups natively; touches only the decoder and the (read-only) partitioner. */
  @Override
  public DecodedMessages decode(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy) {
    ensureOpen();
    return DecodedMessages.partitioned(
        this, decoder.decodePartitioned(messages, partitioner, policy, allocator));
  }

  @Override
  public DecodeStats write(DecodedMessages decoded) {
    try (decoded) {
      ensureOpen();
      writeGroups(decoded.partitionedRows(this));
      return decoded.stats();
    }
  }

  private void writeGroups(PartitionedBatch split) {
    VectorSchemaRoot partitions = split.partitions();
    for (int group = 0; group < split.groupCount(); group++) {
      PartitionFiles files =
          writers.get(partitions, group, p -> new PartitionFiles(factory, p, factory.targetFileSizeBytes()));
      boolean wasOpen = files.hasOpenFile();
      files.write(split, group);
      openFiles += (files.hasOpenFile() ? 1 : 0) - (wasOpen ? 1 : 0);
      if (openFiles > maxOpenFiles) {
        finishLeastRecentlyWritten();
      }
    }
  }

  private void finishLeastRecentlyWritten() {
    for (PartitionFiles files : writers.values()) {
      if (files.hasOpenFile()) {
        files.closeCurrent();
        openFiles--;
        return;
      }
    }
  }

  /** Files open right now (for tests and metrics). */
  int openFiles() {
    return openFiles;
  }

  @Override
  public long bufferedBytes() {
    long bytes = 0;
    for (PartitionFiles files : writers.values()) {
      bytes += files.bufferedBytes();
    }
    return bytes;
  }

  @Override
  public void flushBuffered() {
    ensureOpen();
    writers.values().forEach(PartitionFiles::flushBuffered);
  }

  @Override
  public void encodeBuffered() {
    ensureOpen();
    writers.values().forEach(PartitionFiles::encodeHeld);
    writers.values().forEach(PartitionFiles::awaitEncoded);
  }

  @Override
  public WriteResult complete() {
    ensureOpen();
    done = true;
    WriteResult.Builder result = WriteResult.builder();
    try {
      // Every open file's last rows are encoded at once, then the files are finished in parallel.
      writers.values().forEach(PartitionFiles::encodeHeld);
      List<List<DataFile>> finished = ParallelCompletion.map(
          List.copyOf(writers.values()),
          PartitionFiles::complete,
          files -> Commits.deleteUncommitted(factory.io(), WriteResult.builder().addDataFiles(files).build()));
      for (List<DataFile> written : finished) {
        result.addDataFiles(written);
      }
    } finally {
      partitioner.close();
    }
    openFiles = 0;
    return result.build();
  }

  @Override
  public void abort() {
    if (!done) {
      done = true;
      writers.values().forEach(PartitionFiles::abort);
      partitioner.close();
    }
  }

  private void ensureOpen() {
    if (done) {
      throw new IllegalStateException("the task writer is already complete or aborted");
    }
  }
}
