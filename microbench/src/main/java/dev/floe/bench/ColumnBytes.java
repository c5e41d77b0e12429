package dev.floe.bench;

import dev.floe.arrow.ParquetFileSummary;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The column bytes a Parquet encoder hands to its compressor: the pages (headers, dictionary and
 * data pages) of an uncompressed file, i.e. every row group's column chunks without the footer.
 * Compressing these with zstd-3 is the ceiling for an encoder that writes the same pages as zstd.
 */
final class ColumnBytes {
  private ColumnBytes() {}

  /** The column chunks of an uncompressed file written by floe, in file order. */
  static byte[] read(Path uncompressedFile, ParquetFileSummary summary) throws IOException {
    byte[] file = Files.readAllBytes(uncompressedFile);
    ByteArrayOutputStream pages = new ByteArrayOutputStream();
    for (ParquetFileSummary.RowGroup rowGroup : summary.rowGroups()) {
      long chunks = 0;
      for (ParquetFileSummary.ColumnChunk column : rowGroup.columns()) {
        if (column.compressedSize() != column.uncompressedSize()) {
          throw new IllegalStateException(column.dotPath() + " is compressed; expected none");
        }
        chunks += column.compressedSize();
      }
      if (chunks != rowGroup.compressedSize()) {
        throw new IllegalStateException(
            "row group at " + rowGroup.offset() + ": chunks " + chunks + " != " + rowGroup.compressedSize());
      }
      // A row group's column chunks are contiguous from its first page.
      pages.write(file, Math.toIntExact(rowGroup.offset()), Math.toIntExact(chunks));
    }
    return pages.toByteArray();
  }

  /** {@code bytes} cut into pieces of {@code size} (the last may be shorter). */
  static List<byte[]> split(byte[] bytes, int size) {
    List<byte[]> chunks = new ArrayList<>();
    for (int from = 0; from < bytes.length; from += size) {
      chunks.add(Arrays.copyOfRange(bytes, from, Math.min(bytes.length, from + size)));
    }
    return chunks;
  }
}
