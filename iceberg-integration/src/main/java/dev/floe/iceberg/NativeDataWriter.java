package dev.floe.iceberg;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.PartitionedBatch;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.DataWriteResult;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileWriter;
import org.apache.iceberg.io.OutputFile;

/**
 * One Iceberg data file written by floe's native Parquet writer, through the table's {@code
 * FileIO} (any {@link OutputFile}: local, HDFS, S3). An Iceberg {@link FileWriter} whose unit is
 * an Arrow batch: write batches, close, then take the {@link DataFile} with exact metrics and
 * split offsets ({@link #result()} or {@link #dataFile()}).
 *
 * <p>Not thread-safe. Closing without any rows still produces a valid (empty) file; {@link
 * #abort()} discards the file instead.
 */
public final class NativeDataWriter implements FileWriter<VectorSchemaRoot, DataWriteResult> {
  private final NativeFileOutput output;
  private final PartitionSpec spec;
  private final StructLike partition;
  private final MetricsConfig metricsConfig;
  private DataFile dataFile;

  NativeDataWriter(
      OutputFile file,
      FileIO io,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema,
      WriterSettings settings,
      MetricsConfig metricsConfig,
      PartitionSpec spec,
      StructLike partition,
      BufferAllocator allocator) {
    this.output = new NativeFileOutput(file, io, arrowSchema, settings.parquet(), allocator);
    this.spec = spec;
    this.partition = partition;
    this.metricsConfig = metricsConfig;
  }

  /** Writes a batch whose schema is the table's Arrow schema. */
  @Override
  public void write(VectorSchemaRoot batch) {
    output.writer().write(batch);
    output.addRows(batch.getRowCount());
  }

  /** Writes group {@code group} of a regrouped batch (all of its rows are in this partition). */
  public void write(PartitionedBatch batch, int group) {
    output.writer().write(batch, group);
    output.addRows(batch.rows(group));
  }

  /** Decodes JSON messages straight into this file (see {@link NativeJsonDecoder#decodeInto}). */
  public DecodeStats write(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy) {
    DecodeStats stats = decoder.decodeInto(messages, output.writer(), policy);
    output.addRows(stats.rows());
    return stats;
  }

  /** Rows written so far: the position in the file the next row gets. */
  public long rowCount() {
    return output.rows();
  }

  /** Bytes written so far plus buffered rows' estimated size: what rolling compares to a target. */
  @Override
  public long length() {
    return output.length();
  }

  /** Memory held natively for rows not yet written out (see {@link #flushRowGroup()}). */
  public long bufferedBytes() {
    return output.bufferedBytes();
  }

  /**
   * Starts encoding the rows still held, without waiting: call it on every file about to be
   * closed, then close them, and their last rows are encoded at the same time.
   */
  public void encodeHeld() {
    output.encodeHeld();
  }

  /**
   * Waits until the rows {@link #encodeHeld()} sent are encoded into the row group in progress,
   * which stays open: {@link #bufferedBytes()} then counts encoded pages instead of Arrow batches.
   */
  public void awaitEncoded() {
    output.awaitEncoded();
  }

  /** Writes the buffered rows out as a row group now, freeing their memory; the file stays open. */
  public void flushRowGroup() {
    output.flushRowGroup();
  }

  public String location() {
    return output.location();
  }

  /** Finishes the file and builds its {@link DataFile}. Idempotent. */
  @Override
  public void close() {
    if (output.isClosed()) {
      return;
    }
    dataFile = output.finish(metricsConfig).dataFile(spec, partition);
  }

  /** Discards the file: nothing is finished, the partial output is closed and deleted. */
  public void abort() {
    output.abort();
  }

  /** The finished file, as Iceberg's writers report it; available after {@link #close()}. */
  @Override
  public DataWriteResult result() {
    return new DataWriteResult(dataFile());
  }

  /** The finished file; available after {@link #close()}. */
  public DataFile dataFile() {
    if (dataFile == null) {
      throw new IllegalStateException("the data file is available after close()");
    }
    return dataFile;
  }
}
