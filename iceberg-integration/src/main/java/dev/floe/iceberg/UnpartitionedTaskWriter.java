package dev.floe.iceberg;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.WriteResult;

/**
 * The task writer of an unpartitioned table (or of one given partition): one rolling file at a
 * time; JSON decodes straight into the open file.
 */
final class UnpartitionedTaskWriter implements NativeTaskWriter {
  private final RollingDataWriter files;
  private boolean done;

  UnpartitionedTaskWriter(NativeFileWriterFactory factory, StructLike partition) {
    this.files = new RollingDataWriter(factory, partition, factory.targetFileSizeBytes());
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
  public WriteResult complete() {
    ensureOpen();
    done = true;
    return WriteResult.builder().addDataFiles(files.complete()).build();
  }

  @Override
  public void abort() {
    if (!done) {
      done = true;
      files.abort();
    }
  }

  private void ensureOpen() {
    if (done) {
      throw new IllegalStateException("the task writer is already complete or aborted");
    }
  }
}
