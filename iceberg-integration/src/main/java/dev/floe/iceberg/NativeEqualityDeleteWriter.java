package dev.floe.iceberg;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileWriter;
import org.apache.iceberg.io.OutputFile;

/**
 * One equality-delete file written natively: batches of key columns (the table's identifier
 * fields), each row deleting every older row with equal keys in its partition. Like Iceberg's
 * {@code EqualityDeleteWriter}; not thread-safe.
 */
public final class NativeEqualityDeleteWriter implements FileWriter<VectorSchemaRoot, DeleteWriteResult> {
  private final NativeFileOutput output;
  private final PartitionSpec spec;
  private final StructLike partition;
  private final MetricsConfig metricsConfig;
  private final int[] equalityFieldIds;
  private DeleteFile deleteFile;

  NativeEqualityDeleteWriter(
      OutputFile file,
      FileIO io,
      org.apache.arrow.vector.types.pojo.Schema keySchema,
      WriterSettings settings,
      MetricsConfig metricsConfig,
      PartitionSpec spec,
      StructLike partition,
      int[] equalityFieldIds,
      BufferAllocator allocator) {
    this.output = new NativeFileOutput(file, io, keySchema, settings.parquet(), allocator);
    this.spec = spec;
    this.partition = partition;
    this.metricsConfig = metricsConfig;
    this.equalityFieldIds = equalityFieldIds.clone();
  }

  /** Writes delete rows: a batch with exactly the key columns. */
  @Override
  public void write(VectorSchemaRoot keys) {
    output.writer().write(keys);
    output.addRows(keys.getRowCount());
  }

  public long rowCount() {
    return output.rows();
  }

  /** Bytes written so far plus buffered rows' estimated size. */
  @Override
  public long length() {
    return output.length();
  }

  /** Finishes the file and builds its {@link DeleteFile}. Idempotent. */
  @Override
  public void close() {
    if (output.isClosed()) {
      return;
    }
    deleteFile = output.finish(metricsConfig).deleteFile(spec, partition).ofEqualityDeletes(equalityFieldIds).build();
  }

  public void abort() {
    output.abort();
  }

  /** The finished file, as Iceberg's writers report it; available after {@link #close()}. */
  @Override
  public DeleteWriteResult result() {
    return new DeleteWriteResult(deleteFile());
  }

  public DeleteFile deleteFile() {
    if (deleteFile == null) {
      throw new IllegalStateException("the delete file is available after close()");
    }
    return deleteFile;
  }
}
