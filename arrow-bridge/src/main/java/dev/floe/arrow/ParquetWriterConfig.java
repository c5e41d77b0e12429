package dev.floe.arrow;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Objects;

/**
 * Settings of one native Parquet writer, sent to libfloe as one versioned JSON blob. Defaults
 * follow Iceberg's table-property defaults: zstd level 3, 128 MiB row groups, 1 MiB pages of about
 * 20,000 rows at most, 2 MiB dictionary pages, dictionaries on, page-level statistics kept whole.
 * Rows are encoded in column runs (batches held until 65,536 rows or 32 MiB, then one column at a
 * time) on one thread unless {@link Builder#encodeThreads} asks for more; the file is the same
 * either way.
 *
 * <pre>{@code
 * ParquetWriterConfig config = ParquetWriterConfig.builder().codec("zstd").level(3).build();
 * }</pre>
 */
public record ParquetWriterConfig(
    String codec,
    Integer level,
    long rowGroupBytes,
    long pageBytes,
    long pageRowLimit,
    long dictionaryPageBytes,
    boolean dictionary,
    StatisticsLevel statistics,
    Integer statisticsTruncateLength,
    String createdBy,
    long columnRunRows,
    long columnRunBytes,
    int encodeThreads) {

  /** Version of the JSON blob this class writes. */
  public static final int VERSION = 1;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Where min/max/null-count statistics are kept. */
  public enum StatisticsLevel {
    NONE,
    CHUNK,
    PAGE
  }

  public ParquetWriterConfig {
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(statistics, "statistics");
    if (rowGroupBytes <= 0 || pageBytes <= 0 || pageRowLimit <= 0 || dictionaryPageBytes <= 0) {
      throw new IllegalArgumentException(
          "row group, page and dictionary sizes and the page row limit must be > 0");
    }
    if (columnRunRows < 0 || columnRunBytes < 0) {
      throw new IllegalArgumentException("column run limits must be >= 0");
    }
    if (encodeThreads < 1) {
      throw new IllegalArgumentException("encodeThreads must be at least 1, got " + encodeThreads);
    }
  }

  /** All defaults. */
  public static ParquetWriterConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these settings. */
  public Builder toBuilder() {
    return builder()
        .codec(codec)
        .level(level)
        .rowGroupBytes(rowGroupBytes)
        .pageBytes(pageBytes)
        .pageRowLimit(pageRowLimit)
        .dictionaryPageBytes(dictionaryPageBytes)
        .dictionary(dictionary)
        .statistics(statistics)
        .statisticsTruncateLength(statisticsTruncateLength)
        .createdBy(createdBy)
        .columnRunRows(columnRunRows)
        .columnRunBytes(columnRunBytes)
        .encodeThreads(encodeThreads);
  }

  /** The blob libfloe reads ({@code WriterConfig} in libfloe/src/config.rs). */
  public byte[] toJsonBytes() {
    ObjectNode node = JSON.createObjectNode();
    node.put("version", VERSION);
    node.put("compression", codec.toLowerCase(Locale.ROOT));
    if (level != null) {
      node.put("compression_level", level);
    }
    node.put("row_group_bytes", rowGroupBytes);
    node.put("data_page_bytes", pageBytes);
    node.put("data_page_rows", pageRowLimit);
    node.put("dictionary_page_bytes", dictionaryPageBytes);
    node.put("dictionary", dictionary);
    node.put("statistics", statistics.name().toLowerCase(Locale.ROOT));
    if (statisticsTruncateLength != null) {
      node.put("statistics_truncate_length", statisticsTruncateLength);
    }
    if (createdBy != null) {
      node.put("created_by", createdBy);
    }
    node.put("column_run_rows", columnRunRows);
    node.put("column_run_bytes", columnRunBytes);
    node.put("encode_threads", encodeThreads);
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  public static final class Builder {
    private String codec = "zstd";
    private Integer level;
    private long rowGroupBytes = 128L * 1024 * 1024;
    private long pageBytes = 1024 * 1024;
    private long pageRowLimit = 20_000;
    private long dictionaryPageBytes = 2 * 1024 * 1024;
    private boolean dictionary = true;
    private StatisticsLevel statistics = StatisticsLevel.PAGE;
    private Integer statisticsTruncateLength;
    private String createdBy;
    private long columnRunRows = 64 * 1024;
    private long columnRunBytes = 32L * 1024 * 1024;
    private int encodeThreads = 1;

    private Builder() {}

    /** zstd (default), snappy, gzip, lz4, brotli or uncompressed. */
    public Builder codec(String codec) {
      this.codec = codec;
      return this;
    }

    /** Codec level; null means the codec's default (zstd: 3). */
    public Builder level(Integer level) {
      this.level = level;
      return this;
    }

    public Builder rowGroupBytes(long bytes) {
      this.rowGroupBytes = bytes;
      return this;
    }

    public Builder pageBytes(long bytes) {
      this.pageBytes = bytes;
      return this;
    }

    /**
     * Rows per data page (default 20,000, as Iceberg's {@code write.parquet.page-row-limit}). Best
     * effort: the native writer checks it between the mini-batches it encodes a column in (up to
     * 1,024 values, or a whole write of a column without nulls), so a page may run past it but
     * stays under twice the limit.
     */
    public Builder pageRowLimit(long rows) {
      this.pageRowLimit = rows;
      return this;
    }

    public Builder dictionaryPageBytes(long bytes) {
      this.dictionaryPageBytes = bytes;
      return this;
    }

    public Builder dictionary(boolean enabled) {
      this.dictionary = enabled;
      return this;
    }

    public Builder statistics(StatisticsLevel level) {
      this.statistics = level;
      return this;
    }

    /** Truncate min/max statistics to this many bytes (marked inexact); null keeps them whole. */
    public Builder statisticsTruncateLength(Integer length) {
      this.statisticsTruncateLength = length;
      return this;
    }

    /** The footer's created_by; null means libfloe's own ("floe version x.y.z"). */
    public Builder createdBy(String createdBy) {
      this.createdBy = createdBy;
      return this;
    }

    /**
     * Batches are held (their buffers retained, not copied) until this many rows wait, then
     * encoded one column at a time, which keeps each column's compressor warm in the CPU cache;
     * 0 encodes every batch as it arrives.
     */
    public Builder columnRunRows(long rows) {
      this.columnRunRows = rows;
      return this;
    }

    /** ... or until the held batches retain this many bytes of Arrow memory. */
    public Builder columnRunBytes(long bytes) {
      this.columnRunBytes = bytes;
      return this;
    }

    /**
     * Threads that encode and compress a run's columns: 1 (default) uses the calling thread
     * only; more share the columns out (one thread per column at most). The file's bytes do not
     * depend on it.
     */
    public Builder encodeThreads(int threads) {
      this.encodeThreads = threads;
      return this;
    }

    public ParquetWriterConfig build() {
      return new ParquetWriterConfig(
          codec,
          level,
          rowGroupBytes,
          pageBytes,
          pageRowLimit,
          dictionaryPageBytes,
          dictionary,
          statistics,
          statisticsTruncateLength,
          createdBy,
          columnRunRows,
          columnRunBytes,
          encodeThreads);
    }
  }
}
