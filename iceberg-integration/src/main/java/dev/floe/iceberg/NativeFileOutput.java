package dev.floe.iceberg;

import dev.floe.arrow.NativeParquetWriter;
import dev.floe.arrow.ParquetFileSummary;
import dev.floe.arrow.ParquetWriterConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * One Parquet file being written natively through an Iceberg {@link OutputFile}: the stream, the
 * native writer over it, and the rows written so far. What data and delete writers share; they
 * add the Iceberg metadata.
 */
final class NativeFileOutput {
  private final OutputFile file;
  private final FileIO io;
  private final PositionOutputStream stream;
  private final NativeParquetWriter writer;
  private long rows;
  private boolean closed;

  NativeFileOutput(
      OutputFile file,
      FileIO io,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema,
      ParquetWriterConfig config,
      BufferAllocator allocator) {
    this.file = file;
    this.io = io;
    this.stream = file.createOrOverwrite();
    NativeParquetWriter opened;
    try {
      opened = NativeParquetWriter.open(stream, arrowSchema, config, allocator);
    } catch (RuntimeException e) {
      closeStreamQuietly();
      throw e;
    }
    this.writer = opened;
  }

  NativeParquetWriter writer() {
    return writer;
  }

  /** Rows written so far: the position the next row gets. */
  long rows() {
    return rows;
  }

  void addRows(long count) {
    rows += count;
  }

  String location() {
    return file.location();
  }

  /** Bytes written plus buffered rows' estimated size. */
  long length() {
    return writer.estimatedSize();
  }

  boolean isClosed() {
    return closed;
  }

  /** What Iceberg records about a finished file, from its footer facts. */
  record Finished(String location, long fileSize, Metrics metrics, List<Long> splitOffsets) {}

  /** Completes the file; its metrics follow {@code metricsConfig}. */
  Finished finish(MetricsConfig metricsConfig) {
    ParquetFileSummary summary = finish();
    return new Finished(
        file.location(),
        summary.fileSize(),
        FileMetrics.of(summary, metricsConfig),
        FileMetrics.splitOffsets(summary));
  }

  /** Completes the file and returns its footer facts. */
  ParquetFileSummary finish() {
    closed = true;
    try {
      ParquetFileSummary summary = writer.finish();
      writer.close();
      stream.close();
      return summary;
    } catch (IOException e) {
      throw new UncheckedIOException("closing " + file.location(), e);
    } finally {
      writer.close();
    }
  }

  /** Discards the file: the partial output is closed and deleted. */
  void abort() {
    if (!closed) {
      closed = true;
      writer.close();
      closeStreamQuietly();
      io.deleteFile(file.location());
    }
  }

  private void closeStreamQuietly() {
    try {
      stream.close();
    } catch (IOException ignored) {
      // Aborting: the partial file is garbage either way.
    }
  }
}
