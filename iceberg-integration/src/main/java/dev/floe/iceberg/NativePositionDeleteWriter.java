package dev.floe.iceberg;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;

/**
 * Collects deleted row positions ({@code file_path}, {@code pos}) for one partition and writes
 * them, sorted by path and position as the spec requires, into one position-delete file when
 * closed. Like Iceberg's {@code SortingPositionOnlyDeleteWriter}; not thread-safe.
 */
final class NativePositionDeleteWriter {
  private final OutputFileSource files;
  private final FileIO io;
  private final org.apache.arrow.vector.types.pojo.Schema pathPosSchema;
  private final WriterSettings settings;
  private final MetricsConfig metricsConfig;
  private final PartitionSpec spec;
  private final StructLike partition;
  private final BufferAllocator allocator;
  /** Data file path -> deleted positions; paths and positions are sorted when the file is written. */
  private final Map<String, PositionList> positions = new HashMap<>();

  /** Where the delete file goes, created only if there is something to delete. */
  interface OutputFileSource {
    OutputFile newOutputFile();
  }

  NativePositionDeleteWriter(
      OutputFileSource files,
      FileIO io,
      org.apache.arrow.vector.types.pojo.Schema pathPosSchema,
      WriterSettings settings,
      MetricsConfig metricsConfig,
      PartitionSpec spec,
      StructLike partition,
      BufferAllocator allocator) {
    this.files = files;
    this.io = io;
    this.pathPosSchema = pathPosSchema;
    this.settings = settings;
    this.metricsConfig = metricsConfig;
    this.spec = spec;
    this.partition = partition;
    this.allocator = allocator;
  }

  void delete(String path, long position) {
    positions.computeIfAbsent(path, p -> new PositionList()).add(position);
  }

  /** The data files that rows are deleted from (for conflict validation on commit). */
  java.util.List<CharSequence> referencedDataFiles() {
    return java.util.List.copyOf(positions.keySet());
  }

  /** Writes the file; null when nothing was deleted. */
  DeleteFile complete() {
    if (positions.isEmpty()) {
      return null;
    }
    NativeFileOutput output =
        new NativeFileOutput(files.newOutputFile(), io, pathPosSchema, settings.parquet(), allocator);
    try {
      writeSorted(output);
      NativeFileOutput.Finished file = output.finish(metricsConfig);
      FileMetadata.Builder builder =
          FileMetadata.deleteFileBuilder(spec)
              .ofPositionDeletes()
              .withPath(file.location())
              .withFormat(FileFormat.PARQUET)
              .withPartition(partition)
              .withFileSizeInBytes(file.fileSize())
              .withMetrics(file.metrics())
              .withSplitOffsets(file.splitOffsets());
      if (positions.size() == 1) {
        builder.withReferencedDataFile(positions.keySet().iterator().next());
      }
      return builder.build();
    } catch (RuntimeException | Error e) {
      output.abort();
      throw e;
    }
  }

  private void writeSorted(NativeFileOutput output) {
    try (VectorSchemaRoot batch = VectorSchemaRoot.create(pathPosSchema, allocator)) {
      VarCharVector paths = (VarCharVector) batch.getVector(0);
      BigIntVector positionVector = (BigIntVector) batch.getVector(1);
      for (Map.Entry<String, PositionList> entry : new TreeMap<>(positions).entrySet()) {
        byte[] path = entry.getKey().getBytes(StandardCharsets.UTF_8);
        long[] sorted = entry.getValue().sorted();
        batch.clear();
        batch.allocateNew();
        for (int i = 0; i < sorted.length; i++) {
          paths.setSafe(i, path);
          positionVector.setSafe(i, sorted[i]);
        }
        batch.setRowCount(sorted.length);
        output.writer().write(batch);
        output.addRows(sorted.length);
      }
    }
  }

  /** A growable list of positions. */
  private static final class PositionList {
    private long[] values = new long[16];
    private int size;

    void add(long v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    long[] sorted() {
      long[] out = Arrays.copyOf(values, size);
      Arrays.sort(out);
      return out;
    }
  }
}
