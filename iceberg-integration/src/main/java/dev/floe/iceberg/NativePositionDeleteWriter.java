package dev.floe.iceberg;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.MetricsUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.util.CharSequenceSet;

/**
 * Collects deleted row positions ({@code file_path}, {@code pos}) for one partition and writes
 * them, sorted by path and position as the spec requires, into one position-delete file when
 * closed. An Iceberg {@link FileWriter} like its {@code SortingPositionOnlyDeleteWriter}; not
 * thread-safe.
 */
final class NativePositionDeleteWriter implements FileWriter<PositionDelete<?>, DeleteWriteResult> {
  private static final Set<Integer> PATH_AND_POS =
      Set.of(MetadataColumns.DELETE_FILE_PATH.fieldId(), MetadataColumns.DELETE_FILE_POS.fieldId());

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
  private DeleteWriteResult result;

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

  @Override
  public void write(PositionDelete<?> deleted) {
    delete(deleted.path().toString(), deleted.pos());
  }

  /** Nothing is written before {@link #close()}: positions are sorted first. */
  @Override
  public long length() {
    return 0;
  }

  /** Writes the file, if anything was deleted. Idempotent. */
  @Override
  public void close() {
    if (result == null) {
      DeleteFile file = positions.isEmpty() ? null : writeFile();
      result = new DeleteWriteResult(
          file == null ? List.of() : List.of(file), CharSequenceSet.of(positions.keySet()));
    }
  }

  /**
   * The delete file (none when nothing was deleted) and the data files it refers to (for conflict
   * validation on commit); available after {@link #close()}.
   */
  @Override
  public DeleteWriteResult result() {
    if (result == null) {
      throw new IllegalStateException("the delete file is available after close()");
    }
    return result;
  }

  private DeleteFile writeFile() {
    NativeFileOutput output =
        new NativeFileOutput(files.newOutputFile(), io, pathPosSchema, settings.parquet(), allocator);
    try {
      writeSorted(output);
      NativeFileOutput.Finished finished = output.finish(metricsConfig);
      FileMetadata.Builder builder = finished.withMetrics(keptMetrics(finished.metrics()))
          .deleteFile(spec, partition).ofPositionDeletes();
      if (positions.size() == 1) {
        builder.withReferencedDataFile(positions.keySet().iterator().next());
      }
      return builder.build();
    } catch (RuntimeException | Error e) {
      output.abort();
      throw e;
    }
  }

  /**
   * The metrics Iceberg's {@code PositionDeleteWriter} keeps: never the counts of {@code file_path}
   * and {@code pos}, and their bounds only when the file refers to one data file (then they name
   * it; otherwise they would be long paths in every manifest, of little use for pruning).
   */
  private Metrics keptMetrics(Metrics metrics) {
    return positions.size() > 1
        ? MetricsUtil.copyWithoutFieldCountsAndBounds(metrics, PATH_AND_POS)
        : MetricsUtil.copyWithoutFieldCounts(metrics, PATH_AND_POS);
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
