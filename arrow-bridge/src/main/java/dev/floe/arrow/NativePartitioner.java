package dev.floe.arrow;

import dev.floe.arrow.internal.ExportedRoots;
import dev.floe.ffm.NativeLibrary;
import dev.floe.ffm.internal.floe_h;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Applies Iceberg partition transforms to Arrow batches natively and regroups each batch's rows by
 * partition, so that each partition's rows can be written to its own file with {@link
 * NativeParquetWriter#write(PartitionedBatch, int)}.
 *
 * <pre>{@code
 * try (NativePartitioner partitioner = NativePartitioner.create(schema, fields);
 *     PartitionedBatch split = partitioner.split(root, allocator)) {
 *   for (int g = 0; g < split.groupCount(); g++) {
 *     writerFor(split.partitions(), g).write(split, g);
 *   }
 * }
 * }</pre>
 *
 * <p>Transform results equal Iceberg Java's: bucket, year, month, day and hour give int32 (day
 * counts days since 1970-01-01); identity and truncate keep the source type; void gives nulls.
 *
 * <p>A partitioner is immutable: any number of threads may split batches with it at once, and a
 * failed split (even a {@link NativePanicException}) leaves it usable. Closing is idempotent;
 * splitting after close throws {@link IllegalStateException}.
 */
public final class NativePartitioner extends NativeHandle {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Schema schema;
  private final List<PartitionField> fields;

  private NativePartitioner(Arena arena, Schema schema, List<PartitionField> fields) {
    // Immutable natively, so no error can leave it half-updated: nothing fails it.
    super("NativePartitioner", arena, code -> false);
    this.schema = schema;
    this.fields = fields;
  }

  /**
   * Creates a partitioner for batches of {@code schema} (with {@code PARQUET:field_id}s).
   *
   * @throws InvalidArgumentException if a source id is missing or a transform does not apply to
   *     its source column's type (the message names both)
   */
  public static NativePartitioner create(Schema schema, List<PartitionField> fields) {
    Objects.requireNonNull(schema, "schema");
    List<PartitionField> copy = List.copyOf(fields);
    NativeLibrary.load();
    NativePartitioner partitioner = new NativePartitioner(Arena.ofShared(), schema, copy);
    partitioner.create(schema, specJson(copy), floe_h::floe_partitioner_new);
    return partitioner;
  }

  public Schema schema() {
    return schema;
  }

  public List<PartitionField> fields() {
    return fields;
  }

  /**
   * Regroups {@code root}'s rows by partition. The root is exported (its buffers are shared, not
   * copied) and stays owned by the caller; the returned batch holds its own references, and its
   * partition values are allocated from {@code allocator}. Holds the partitioner's lock, as {@link
   * #close()} does: a close from another thread waits for the split.
   */
  public synchronized PartitionedBatch split(VectorSchemaRoot root, BufferAllocator allocator) {
    Objects.requireNonNull(root, "root");
    MemorySegment partitioner = handle();
    ExportedRoots.requireWithinBuffers(root);
    try (Arena call = Arena.ofConfined();
        ArrowArray array = ArrowArray.allocateNew(allocator);
        ArrowSchema ffiSchema = ArrowSchema.allocateNew(allocator)) {
      try {
        Data.exportVectorSchemaRoot(allocator, root, null, array, ffiSchema);
        return PartitionedBatch.receive(
            allocator,
            call,
            (partitionsArray, partitionsSchema, outBatch, error) ->
                floe_h.floe_partitioner_split(
                    partitioner,
                    MemorySegment.ofAddress(array.memoryAddress()),
                    MemorySegment.ofAddress(ffiSchema.memoryAddress()),
                    partitionsArray,
                    partitionsSchema,
                    outBatch,
                    error));
      } finally {
        // The array moves into the call; when the call never ran (the export failed part way,
        // the schema after the array, or the result's structs could not be allocated) it is
        // still ours, and releasing it lets go of the root's buffers.
        array.release();
        ffiSchema.release();
      }
    }
  }

  /** Frees the native partitioner, after any split running (here or in a decoder). Idempotent. */
  @Override
  public synchronized void close() {
    super.close();
  }

  @Override
  void free(MemorySegment partitioner) {
    floe_h.floe_partitioner_free(partitioner);
  }

  private static byte[] specJson(List<PartitionField> fields) {
    ObjectNode spec = JSON.createObjectNode();
    spec.put("version", 1);
    ArrayNode array = spec.putArray("fields");
    for (PartitionField f : fields) {
      array
          .addObject()
          .put("name", f.name())
          .put("source_id", f.sourceId())
          .put("transform", f.transform());
    }
    return spec.toString().getBytes(StandardCharsets.UTF_8);
  }
}
