package dev.floe.cli;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.NativeParquetWriter;
import dev.floe.arrow.ParquetFileSummary;
import dev.floe.arrow.ParquetWriterConfig;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/** One Parquet file, written natively under a temp name and renamed to its name on commit. */
final class ParquetFileTarget implements WriteTarget {
  private final Path target;
  private final Schema arrowSchema;
  private final TempFile temp;
  private final NativeParquetWriter writer;

  private ParquetFileTarget(Path target, Schema arrowSchema, TempFile temp, NativeParquetWriter writer) {
    this.target = target;
    this.arrowSchema = arrowSchema;
    this.temp = temp;
    this.writer = writer;
  }

  static ParquetFileTarget open(Path output, Schema arrowSchema, ParquetWriterConfig config, BufferAllocator allocator)
      throws IOException {
    TempFile temp = TempFile.beside(output);
    try {
      NativeParquetWriter writer = NativeParquetWriter.open(temp.path(), arrowSchema, config, allocator);
      return new ParquetFileTarget(output.toAbsolutePath(), arrowSchema, temp, writer);
    } catch (RuntimeException e) {
      temp.close();
      throw e;
    }
  }

  @Override
  public Schema arrowSchema() {
    return arrowSchema;
  }

  @Override
  public DecodeStats write(NativeJsonDecoder decoder, MessageBatch messages, BadRecordPolicy policy) {
    return decoder.decodeInto(messages, writer, policy);
  }

  @Override
  public Written commit() throws IOException {
    ParquetFileSummary summary = writer.finish();
    writer.close();
    temp.moveTo(target);
    return new Written(
        target.toString(),
        1,
        summary.fileSize(),
        summary.rowGroups().size() + " row group" + (summary.rowGroups().size() == 1 ? "" : "s"));
  }

  @Override
  public void close() throws IOException {
    try {
      writer.close();
    } finally {
      temp.close();
    }
  }
}
