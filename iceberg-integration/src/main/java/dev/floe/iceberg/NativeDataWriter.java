package dev.floe.iceberg;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.NativeParquetWriter;
import dev.floe.arrow.ParquetFileSummary;
import dev.floe.arrow.PartitionedBatch;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * One Iceberg data file written by floe's native Parquet writer, through the table's {@code
 * FileIO} (any {@link OutputFile}: local, HDFS, S3). Like Iceberg's {@code DataWriter}: write
 * batches, close, then take the {@link DataFile} with exact metrics and split offsets.
 *
 * <p>Not thread-safe. Closing without any rows still produces a valid (empty) file; {@link
 * #abort()} discards the file instead.
 */
public final class NativeDataWriter implements Closeable {
  private final OutputFile file;
  private final FileIO io;
  private final PositionOutputStream stream;
  private final NativeParquetWriter writer;
  private final PartitionSpec spec;
  private final StructLike partition;
  private final MetricsConfig metricsConfig;
  private DataFile dataFile;
  private boolean closed;

  NativeDataWriter(
      OutputFile file,
      FileIO io,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema,
      WriterSettings settings,
      MetricsConfig metricsConfig,
      PartitionSpec spec,
      StructLike partition,
      BufferAllocator allocator) {
    this.file = file;
    this.io = io;
    this.spec = spec;
    this.partition = partition;
    this.metricsConfig = metricsConfig;
    this.stream = file.createOrOverwrite();
    NativeParquetWriter opened;
    try {
      opened = NativeParquetWriter.open(stream, arrowSchema, settings.parquet(), allocator);
    } catch (RuntimeException e) {
      closeQuietly();
      throw e;
    }
    this.writer = opened;
  }

  public void write(VectorSchemaRoot batch) {
    writer.write(batch);
  }

  /** Writes group {@code group} of a regrouped batch (all of its rows are in this partition). */
  public void write(PartitionedBatch batch, int group) {
    writer.write(batch, group);
  }

  /** Decodes JSON messages straight into this file (see {@link NativeJsonDecoder#decodeInto}). */
  public DecodeStats write(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy) {
    return decoder.decodeInto(messages, writer, policy);
  }

  /** Bytes written so far plus buffered rows' estimated size: what rolling compares to a target. */
  public long length() {
    return writer.estimatedSize();
  }

  public String location() {
    return file.location();
  }

  /** Finishes the file and builds its {@link DataFile}. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      ParquetFileSummary summary = writer.finish();
      writer.close();
      stream.close();
      dataFile =
          DataFiles.builder(spec)
              .withPath(file.location())
              .withFormat(FileFormat.PARQUET)
              .withPartition(partition)
              .withFileSizeInBytes(summary.fileSize())
              .withMetrics(FileMetrics.of(summary, metricsConfig))
              .withSplitOffsets(FileMetrics.splitOffsets(summary))
              .build();
    } catch (IOException e) {
      throw new UncheckedIOException("closing " + file.location(), e);
    } finally {
      writer.close();
    }
  }

  /** Discards the file: nothing is finished, the partial output is closed and deleted. */
  public void abort() {
    if (!closed) {
      closed = true;
      closeQuietly();
      io.deleteFile(file.location());
    }
  }

  /** The finished file; available after {@link #close()}. */
  public DataFile dataFile() {
    if (dataFile == null) {
      throw new IllegalStateException("the data file is available after close()");
    }
    return dataFile;
  }

  private void closeQuietly() {
    if (writer != null) {
      writer.close();
    }
    try {
      stream.close();
    } catch (IOException ignored) {
      // Aborting: the partial file is garbage either way.
    }
  }
}
