package dev.floe.arrow;

import java.util.List;

/**
 * Footer facts of a finished Parquet file, as libfloe wrote them.
 *
 * @param rowCount rows in the file
 * @param fileSize bytes written, footer included
 * @param rowGroups row groups in file order
 * @param footer the file's Thrift {@code FileMetaData}, byte for byte as written (what Parquet
 *     readers parse, e.g. to compute Iceberg metrics exactly as Iceberg does)
 * @param nanCounts NaN values per float/double leaf at the top level or inside structs (Parquet
 *     statistics do not count them)
 */
public record ParquetFileSummary(
    long rowCount,
    long fileSize,
    List<RowGroup> rowGroups,
    byte[] footer,
    List<NanCount> nanCounts) {

  public ParquetFileSummary {
    rowGroups = List.copyOf(rowGroups);
    nanCounts = List.copyOf(nanCounts);
  }

  /**
   * NaN values of one float/double leaf, and the signs of its zeros (Parquet statistics give -0.0
   * for any zero minimum and 0.0 for any zero maximum; Iceberg's bounds keep the zero written).
   *
   * @param path the leaf's path (struct field names)
   * @param fieldId its {@code PARQUET:field_id}, or null
   * @param count NaN values written
   * @param negativeZero whether a -0.0 was written
   * @param positiveZero whether a 0.0 was written
   */
  public record NanCount(List<String> path, Integer fieldId, long count, boolean negativeZero, boolean positiveZero) {
    public NanCount {
      path = List.copyOf(path);
    }
  }

  /** Starting positions of the row groups: Iceberg's {@code DataFile.splitOffsets()}. */
  public List<Long> splitOffsets() {
    return rowGroups.stream().map(RowGroup::offset).toList();
  }

  /**
   * One row group.
   *
   * @param offset position of its first page in the file
   * @param rowCount rows in the row group
   * @param totalByteSize uncompressed size of its column data
   * @param compressedSize compressed size of its column chunks
   * @param columns leaf column chunks, in schema order
   */
  public record RowGroup(
      long offset, long rowCount, long totalByteSize, long compressedSize, List<ColumnChunk> columns) {
    public RowGroup {
      columns = List.copyOf(columns);
    }
  }

  /**
   * One leaf column chunk.
   *
   * @param path the leaf's path in the Parquet schema, e.g. {@code [tags, list, element]}
   * @param fieldId its {@code PARQUET:field_id}, or null if the schema had none
   * @param physicalType Parquet physical type, e.g. {@code INT64}
   * @param codec compression codec as Parquet names it, e.g. {@code ZSTD} (the footer records no level)
   * @param compressedSize bytes of the chunk as stored
   * @param uncompressedSize bytes of the chunk before compression
   * @param valueCount values including nulls
   * @param nullCount nulls, or null when statistics were off
   * @param min plain-encoded minimum, or null when there is none
   * @param max plain-encoded maximum, or null when there is none
   * @param minExact false when {@code min} was truncated
   * @param maxExact false when {@code max} was truncated
   */
  public record ColumnChunk(
      List<String> path,
      Integer fieldId,
      String physicalType,
      String codec,
      long compressedSize,
      long uncompressedSize,
      long valueCount,
      Long nullCount,
      byte[] min,
      byte[] max,
      boolean minExact,
      boolean maxExact) {
    public ColumnChunk {
      path = List.copyOf(path);
    }

    /** The path joined with dots, as Parquet's {@code ColumnPath.toDotString()}. */
    public String dotPath() {
      return String.join(".", path);
    }
  }
}
