package dev.floe.iceberg;

import dev.floe.arrow.NativePartitioner;
import dev.floe.arrow.PartitionedBatch;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.io.WriteResult;

/**
 * An upsert writer's equality deletes for the table's older partition specs that still hold live
 * data files (after partition evolution, until those files are rewritten). A partitioned equality
 * delete applies only to data files of its own spec and partition, so the deletes written in the
 * current spec do not reach a key's row in a file of an older spec: each new key is deleted once
 * more in every such spec, in the partition that spec gives the key (an unpartitioned older spec's
 * deletes apply to every file). Iceberg's own upsert writers write only the current spec's.
 *
 * <p>Each older spec's partition source columns must be identifier fields, so that the key alone
 * names its partition there. Not thread-safe.
 */
final class OlderSpecDeletes implements AutoCloseable {
  private final NativeFileWriterFactory factory;
  private final BufferAllocator allocator;
  private final List<SpecDeletes> specs = new ArrayList<>();

  /** One older spec's partitioner over keys, and its delete writer per partition. */
  private record SpecDeletes(PartitionSpec spec, NativePartitioner partitioner, PartitionMap<NativeEqualityDeleteWriter> writers) {}

  /** Each older spec's partition source columns are identifier fields (the factory checked it). */
  OlderSpecDeletes(NativeFileWriterFactory factory, List<PartitionSpec> olderSpecs, BufferAllocator allocator) {
    this.factory = factory;
    this.allocator = allocator;
    for (PartitionSpec spec : olderSpecs) {
      NativePartitioner partitioner = spec.isUnpartitioned()
          ? null
          : NativePartitioner.create(factory.equalityDeleteArrowSchema(), PartitionValues.fields(spec));
      specs.add(new SpecDeletes(spec, partitioner, new PartitionMap<>(spec, false)));
    }
  }

  /** Deletes every key of {@code keys} (a batch of the key schema) in each older spec. */
  void delete(VectorSchemaRoot keys) {
    if (specs.isEmpty()) {
      return; // the common case, on every group of every batch: nothing to allocate
    }
    int[] allColumns = KeyRows.allColumns(keys);
    for (SpecDeletes older : specs) {
      if (older.partitioner() == null) {
        // An unpartitioned spec has one partition: the map reads no values for it.
        older.writers().get(null, 0, p -> factory.newEqualityDeleteWriter(older.spec(), null)).write(keys);
        continue;
      }
      try (PartitionedBatch split = older.partitioner().split(keys, allocator)) {
        int[] order = split.rowOrder();
        int offset = 0;
        for (int group = 0; group < split.groupCount(); group++) {
          int rows = Math.toIntExact(split.rows(group));
          NativeEqualityDeleteWriter writer =
              older.writers().get(split.partitions(), group, p -> factory.newEqualityDeleteWriter(older.spec(), p));
          try (VectorSchemaRoot groupKeys =
              KeyRows.select(keys, allColumns, keys.getSchema(), order, offset, rows, allocator)) {
            writer.write(groupKeys);
          }
          offset += rows;
        }
      }
    }
  }

  /** Closes every delete file; returns them. */
  List<DeleteFile> complete() {
    List<DeleteFile> files = new ArrayList<>();
    try {
      for (SpecDeletes older : specs) {
        for (NativeEqualityDeleteWriter writer : older.writers().values()) {
          writer.close();
          files.add(writer.deleteFile());
        }
      }
    } catch (RuntimeException | Error e) {
      abort(); // the files not finished
      Commits.deleteUncommittedQuietly(factory.io(), WriteResult.builder().addDeleteFiles(files).build(), e);
      throw e;
    }
    return files;
  }

  void abort() {
    for (SpecDeletes older : specs) {
      older.writers().values().forEach(NativeEqualityDeleteWriter::abort);
    }
  }

  @Override
  public void close() {
    for (SpecDeletes older : specs) {
      if (older.partitioner() != null) {
        older.partitioner().close();
      }
    }
  }
}
