package dev.floe.bench;

import dev.floe.arrow.NativeParquetWriter;
import dev.floe.arrow.ParquetFileSummary;
import dev.floe.arrow.ParquetWriterConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.Files;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;

/**
 * The two writers under test, with the same settings on both sides: zstd level 3, 128 MiB row
 * groups, 1 MiB pages, 2 MiB dictionary pages (Iceberg's table defaults, spelled out).
 */
final class Writers {
  static final long MIB = 1024 * 1024;
  static final long ROW_GROUP_BYTES = 128 * MIB;
  static final long PAGE_BYTES = MIB;
  static final long DICTIONARY_PAGE_BYTES = 2 * MIB;

  private Writers() {}

  /** floe's settings; {@code codec} is "zstd" (level 3) or "uncompressed". */
  static ParquetWriterConfig floeConfig(String codec) {
    return ParquetWriterConfig.builder()
        .codec(codec)
        .level("zstd".equals(codec) ? 3 : null)
        .rowGroupBytes(ROW_GROUP_BYTES)
        .pageBytes(PAGE_BYTES)
        .dictionaryPageBytes(DICTIONARY_PAGE_BYTES)
        .build();
  }

  /** floe writing the file itself (native buffered file I/O). */
  static ParquetFileSummary floe(
      Path file,
      Schema schema,
      List<VectorSchemaRoot> batches,
      ParquetWriterConfig config,
      BufferAllocator allocator) {
    try (NativeParquetWriter writer = NativeParquetWriter.open(file, schema, config, allocator)) {
      return writeAll(writer, batches);
    }
  }

  /**
   * floe writing into Iceberg's local {@code OutputFile} stream through the upcall sink: the
   * same output plumbing Iceberg's own writer uses.
   */
  static ParquetFileSummary floeStream(
      Path file,
      Schema schema,
      List<VectorSchemaRoot> batches,
      ParquetWriterConfig config,
      BufferAllocator allocator) {
    try (OutputStream out = Files.localOutput(file.toFile()).createOrOverwrite();
        NativeParquetWriter writer = NativeParquetWriter.open(out, schema, config, allocator)) {
      return writeAll(writer, batches);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ParquetFileSummary writeAll(
      NativeParquetWriter writer, List<VectorSchemaRoot> batches) {
    for (VectorSchemaRoot batch : batches) {
      writer.write(batch);
    }
    return writer.finish();
  }

  /** Iceberg Java's generic Parquet writer; returns the metrics it computed on close. */
  static Metrics iceberg(Path file, org.apache.iceberg.Schema schema, List<Record> records) {
    try {
      FileAppender<Record> appender =
          Parquet.write(Files.localOutput(file.toFile()))
              .schema(schema)
              .createWriterFunc(GenericParquetWriter::create)
              .set("write.parquet.compression-codec", "zstd")
              .set("write.parquet.compression-level", "3")
              .set("write.parquet.row-group-size-bytes", Long.toString(ROW_GROUP_BYTES))
              .set("write.parquet.page-size-bytes", Long.toString(PAGE_BYTES))
              .set("write.parquet.dict-size-bytes", Long.toString(DICTIONARY_PAGE_BYTES))
              .overwrite()
              .build();
      try (appender) {
        appender.addAll(records);
      }
      return appender.metrics();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
