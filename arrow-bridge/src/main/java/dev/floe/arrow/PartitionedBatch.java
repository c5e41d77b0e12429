package dev.floe.arrow;

import dev.floe.arrow.internal.NativeStatus;
import dev.floe.ffm.internal.floe_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One batch regrouped by partition (from {@link NativePartitioner#split} or {@link
 * NativeJsonDecoder#decodePartitioned}): group {@code g}'s partition values are row {@code g} of
 * {@link #partitions()}, and its rows stay native until {@link NativeParquetWriter#write(
 * PartitionedBatch, int)} encodes them. Groups are numbered in order of their first row.
 *
 * <p>Owns native memory and the partition values' Arrow buffers: close it (idempotent) when every
 * group is written. Immutable natively, so no failure leaves it unusable. Not thread-safe.
 */
public final class PartitionedBatch extends NativeHandle {
  private final VectorSchemaRoot partitions;
  private final long[] groupRows;
  private final DecodeStats decodeStats;

  private PartitionedBatch(
      MemorySegment handle, VectorSchemaRoot partitions, long[] groupRows, DecodeStats decodeStats) {
    super("PartitionedBatch", null, code -> false);
    adopt(handle);
    this.partitions = partitions;
    this.groupRows = groupRows;
    this.decodeStats = decodeStats;
  }

  /**
   * The number of partitions the batch's rows fall into.
   *
   * @throws IllegalStateException once closed (a closed batch's groups are gone)
   */
  public int groupCount() {
    handle();
    return groupRows.length;
  }

  /**
   * One row of partition values per group; columns named and typed as the spec's results.
   *
   * @throws IllegalStateException once closed (the values are freed with the batch)
   */
  public VectorSchemaRoot partitions() {
    handle();
    return partitions;
  }

  /** Rows in group {@code group}. */
  public long rows(int group) {
    return groupRows[group];
  }

  /** Rows in all groups. */
  public long totalRows() {
    long total = 0;
    for (long rows : groupRows) {
      total += rows;
    }
    return total;
  }

  /**
   * For every row in group order (group 0's rows first, each group's rows in input order), its
   * index in the input batch: how callers match a regrouped row -- and so its position in the file
   * it is written to -- with their own view of the input.
   */
  public synchronized int[] rowOrder() {
    int rows = Math.toIntExact(totalRows());
    if (rows == 0) {
      return new int[0];
    }
    try (Arena call = Arena.ofConfined()) {
      MemorySegment order = call.allocate(ValueLayout.JAVA_INT, rows);
      MemorySegment error = call.allocate(ValueLayout.ADDRESS);
      int status = floe_h.floe_partitioned_batch_row_order(handle(), order, rows, error);
      check(status, error, null);
      return order.toArray(ValueLayout.JAVA_INT);
    }
  }

  /** What decoding did, for a batch from {@link NativeJsonDecoder#decodePartitioned}; else null. */
  public DecodeStats decodeStats() {
    return decodeStats;
  }

  /** This batch, with its decode stats; it takes over the native batch and the partitions. */
  PartitionedBatch withDecodeStats(DecodeStats stats) {
    return new PartitionedBatch(detach(), partitions, groupRows, stats);
  }

  /** Frees the native batch and the partition values. Idempotent. */
  @Override
  public synchronized void close() {
    super.close();
  }

  @Override
  void free(MemorySegment batch) {
    floe_h.floe_partitioned_batch_free(batch);
  }

  @Override
  void freed() {
    partitions.close();
  }

  /** A native call that fills the partition values' C Data structs and the batch handle. */
  interface SplitCall {
    int call(
        MemorySegment partitionsArray,
        MemorySegment partitionsSchema,
        MemorySegment outBatch,
        MemorySegment error);
  }

  /** Runs {@code split} and takes ownership of what it returns. */
  static PartitionedBatch receive(BufferAllocator allocator, Arena call, SplitCall split) {
    MemorySegment outBatch = call.allocate(ValueLayout.ADDRESS);
    MemorySegment error = call.allocate(ValueLayout.ADDRESS);
    try (ArrowArray array = ArrowArray.allocateNew(allocator);
        ArrowSchema schema = ArrowSchema.allocateNew(allocator)) {
      int status =
          split.call(
              MemorySegment.ofAddress(array.memoryAddress()),
              MemorySegment.ofAddress(schema.memoryAddress()),
              outBatch,
              error);
      NativeStatus.check(status, error, null);
      MemorySegment handle = outBatch.get(ValueLayout.ADDRESS, 0);
      VectorSchemaRoot partitions = null;
      try {
        partitions = Data.importVectorSchemaRoot(allocator, array, schema, null);
        return new PartitionedBatch(handle, partitions, groupRows(handle, partitions, call), null);
      } catch (RuntimeException | Error e) {
        if (partitions != null) {
          partitions.close();
        }
        floe_h.floe_partitioned_batch_free(handle);
        throw e;
      }
    }
  }

  private static long[] groupRows(MemorySegment handle, VectorSchemaRoot partitions, Arena call) {
    int groups = partitions.getRowCount();
    MemorySegment rows = call.allocate(ValueLayout.JAVA_LONG, Math.max(1, groups));
    MemorySegment error = call.allocate(ValueLayout.ADDRESS);
    int status = floe_h.floe_partitioned_batch_group_rows(handle, rows, groups, error);
    NativeStatus.check(status, error, null);
    return groups == 0 ? new long[0] : rows.toArray(ValueLayout.JAVA_LONG);
  }
}
