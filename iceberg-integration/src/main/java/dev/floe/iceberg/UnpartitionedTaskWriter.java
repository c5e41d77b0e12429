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
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.WriteResult;

/**
 * The task writer of an unpartitioned table (or of one given partition): one rolling file at a
 * time; JSON decodes straight into the open file.
 */
final class UnpartitionedTaskWriter implements NativeTaskWriter {
  private final PartitionFiles files;
  private final BufferAllocator allocator;
  /** A partitioner without fields, for {@link #decode}: one group, the batch not copied. */
  private final NativePartitioner oneGroup;
  private boolean done;

  UnpartitionedTaskWriter(NativeFileWriterFactory factory, StructLike partition, BufferAllocator allocator) {
    this.files = new PartitionFiles(factory, partition, factory.targetFileSizeBytes());
    this.allocator = allocator;
    this.oneGroup = NativePartitioner.create(factory.arrowSchema(), List.of());
  }

  @Override
  public void write(VectorSchemaRoot batch) {
    ensureOpen();
    files.write(batch);
  }

  @Override
  public DecodeStats write(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy) {
    ensureOpen();
    return files.write(decoder, messages, policy);
  }

  @Override
  public DecodedMessages decode(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy) {
    ensureOpen();
    return DecodedMessages.partitioned(
        this, decoder.decodePartitioned(messages, oneGroup, policy, allocator));
  }

  @Override
  public DecodeStats write(DecodedMessages decoded) {
    try (decoded) {
      ensureOpen();
      PartitionedBatch rows = decoded.partitionedRows(this);
      if (rows.groupCount() > 0) {
        files.write(rows, 0);
      }
      return decoded.stats();
    }
  }

  @Override
  public long bufferedBytes() {
    return files.bufferedBytes();
  }

  @Override
  public void flushBuffered() {
    ensureOpen();
    files.flushBuffered();
  }

  @Override
  public void encodeBuffered() {
    ensureOpen();
    files.encodeHeld();
    files.awaitEncoded();
  }

  @Override
  public WriteResult complete() {
    ensureOpen();
    done = true;
    try {
      return WriteResult.builder().addDataFiles(files.complete()).build();
    } finally {
      oneGroup.close();
    }
  }

  @Override
  public void abort() {
    if (!done) {
      done = true;
      files.abort();
      oneGroup.close();
    }
  }

  private void ensureOpen() {
    if (done) {
      throw new IllegalStateException("the task writer is already complete or aborted");
    }
  }
}
