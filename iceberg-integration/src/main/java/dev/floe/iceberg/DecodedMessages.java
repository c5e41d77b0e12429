package dev.floe.iceberg;

import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.DecodedBatch;
import dev.floe.arrow.PartitionedBatch;

/**
 * Messages a task writer has decoded ({@link NativeTaskWriter#decode}) but not yet written: the
 * first half of a write, handed to the second ({@link NativeTaskWriter#write(DecodedMessages)}),
 * usually on another thread. Holds the rows natively, regrouped by partition -- or, for upserts,
 * as Java Arrow, because the keys are read from it -- and nothing of the {@code MessageBatch} they
 * came from, which may be refilled at once.
 *
 * <p>Owns that memory until the writer that decoded it writes it; close it to drop it unwritten
 * (idempotent, and harmless after the write). Hand it between threads through something that
 * orders the two (an executor, a queue); it is not for concurrent use.
 */
public final class DecodedMessages implements AutoCloseable {
  private final NativeTaskWriter decodedBy;
  private final PartitionedBatch partitioned;
  private final DecodedBatch decoded;
  private final DecodeStats stats;

  private DecodedMessages(
      NativeTaskWriter decodedBy, PartitionedBatch partitioned, DecodedBatch decoded, DecodeStats stats) {
    this.decodedBy = decodedBy;
    this.partitioned = partitioned;
    this.decoded = decoded;
    this.stats = stats;
  }

  /** Rows regrouped by partition (appends). */
  static DecodedMessages partitioned(NativeTaskWriter decodedBy, PartitionedBatch rows) {
    return new DecodedMessages(decodedBy, rows, null, rows.decodeStats());
  }

  /** Rows in Java Arrow (upserts read their keys from them). */
  static DecodedMessages decoded(NativeTaskWriter decodedBy, DecodedBatch rows) {
    DecodeStats stats =
        new DecodeStats(rows.root().getRowCount(), rows.rejectedCount(), rows.rejected());
    return new DecodedMessages(decodedBy, null, rows, stats);
  }

  /** Rows decoded and the messages rejected (under {@code DEAD_LETTER}). */
  public DecodeStats stats() {
    return stats;
  }

  PartitionedBatch partitionedRows(NativeTaskWriter writer) {
    checkWriter(writer);
    if (partitioned == null) {
      throw new IllegalStateException("these messages were decoded for upserts, not regrouped");
    }
    return partitioned;
  }

  DecodedBatch decodedRows(NativeTaskWriter writer) {
    checkWriter(writer);
    if (decoded == null) {
      throw new IllegalStateException("these messages were regrouped natively, not decoded to Java");
    }
    return decoded;
  }

  private void checkWriter(NativeTaskWriter writer) {
    if (writer != decodedBy) {
      throw new IllegalArgumentException("decoded messages must be written by the writer that decoded them");
    }
  }

  @Override
  public void close() {
    if (partitioned != null) {
      partitioned.close();
    }
    if (decoded != null) {
      decoded.close();
    }
  }
}
