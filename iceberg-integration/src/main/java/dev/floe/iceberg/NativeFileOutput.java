package dev.floe.iceberg;

import dev.floe.arrow.NativeParquetWriter;
import dev.floe.arrow.ParquetFileSummary;
import dev.floe.arrow.ParquetWriterConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * One Parquet file being written natively through an Iceberg {@link OutputFile}: the native writer,
 * the stream it writes to, and the rows written so far. What data and delete writers share; they
 * add the Iceberg metadata.
 *
 * <p>A local file ({@link LocalFiles}) is written by libfloe itself; any other goes through the
 * file's output stream, fed from the writing thread.
 */
final class NativeFileOutput {
  private final OutputFile file;
  private final FileIO io;
  /** The file's stream, or null when libfloe writes the local file itself. */
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
    Optional<Path> local = LocalFiles.localPath(file);
    if (local.isPresent()) {
      this.stream = null;
      this.writer = NativeParquetWriter.open(createParents(local.get()), arrowSchema, config, allocator);
      return;
    }
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

  private static Path createParents(Path path) {
    try {
      Files.createDirectories(path.toAbsolutePath().getParent());
      return path;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the directory of " + path, e);
    }
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

  /** Memory held for rows not yet written out. */
  long bufferedBytes() {
    return writer.bufferedBytes();
  }

  /** Starts encoding the held rows without waiting (see {@code NativeParquetWriter#encodeHeld}). */
  void encodeHeld() {
    writer.encodeHeld();
  }

  /** Waits for the rows {@link #encodeHeld()} sent (see {@code NativeParquetWriter#awaitEncoded}). */
  void awaitEncoded() {
    writer.awaitEncoded();
  }

  /** Writes the buffered rows out as a row group now. */
  void flushRowGroup() {
    writer.flushRowGroup();
  }

  boolean isClosed() {
    return closed;
  }

  /** What Iceberg records about a finished file, from its footer facts. */
  record Finished(String location, long fileSize, Metrics metrics, List<Long> splitOffsets) {
    /** The same file with other metrics. */
    Finished withMetrics(Metrics other) {
      return new Finished(location, fileSize, other, splitOffsets);
    }

    /** The file as a data file of {@code partition}. */
    DataFile dataFile(PartitionSpec spec, StructLike partition) {
      return DataFiles.builder(spec)
          .withPath(location)
          .withFormat(FileFormat.PARQUET)
          .withPartition(partition)
          .withFileSizeInBytes(fileSize)
          .withMetrics(metrics)
          .withSplitOffsets(splitOffsets)
          .build();
    }

    /** The file as a delete file of {@code partition}; the caller says which kind. */
    FileMetadata.Builder deleteFile(PartitionSpec spec, StructLike partition) {
      return FileMetadata.deleteFileBuilder(spec)
          .withPath(location)
          .withFormat(FileFormat.PARQUET)
          .withPartition(partition)
          .withFileSizeInBytes(fileSize)
          .withMetrics(metrics)
          .withSplitOffsets(splitOffsets);
    }
  }

  /** Completes the file; its metrics follow {@code metricsConfig}. */
  Finished finish(MetricsConfig metricsConfig) {
    ParquetFileSummary summary = finish();
    return new Finished(
        file.location(),
        summary.fileSize(),
        FileMetrics.of(summary, metricsConfig),
        FileMetrics.splitOffsets(summary));
  }

  /** Completes the file and returns its footer facts; a file that cannot be completed is deleted. */
  ParquetFileSummary finish() {
    closed = true;
    try {
      ParquetFileSummary summary = writer.finish();
      writer.close();
      if (stream != null) {
        stream.close();
      }
      return summary;
    } catch (IOException e) {
      UncheckedIOException failure = new UncheckedIOException("closing " + file.location(), e);
      deleteStreamed(failure);
      throw failure;
    } catch (RuntimeException | Error e) {
      deleteStreamed(e);
      throw e;
    } finally {
      writer.close();
    }
  }

  /**
   * After a failed finish: what reached storage through the stream is deleted (a local file the
   * native writer wrote itself, it removed already).
   */
  private void deleteStreamed(Throwable failure) {
    if (stream == null) {
      return;
    }
    closeStreamQuietly();
    try {
      io.deleteFile(file.location());
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
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
    if (stream == null) {
      return; // the native writer removed its partial local file
    }
    try {
      stream.close();
    } catch (IOException ignored) {
      // Aborting: the partial file is garbage either way.
    }
  }
}
