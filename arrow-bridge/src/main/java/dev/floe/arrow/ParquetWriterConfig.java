package dev.floe.arrow;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Settings of one native Parquet writer, sent to libfloe as one versioned JSON blob whose keys are
 * these components' names in snake_case. The defaults live in one place for Java and Rust: {@code
 * libfloe/writer-defaults.json}, compiled into libfloe and packaged here. They follow Iceberg's
 * table-property defaults: zstd level 3, 128 MiB row groups, 1 MiB pages of about
 * 20,000 rows at most, 2 MiB dictionary pages, dictionaries on, page-level statistics kept whole.
 * Rows are encoded in column runs (batches held until 65,536 rows or 32 MiB, then one column at a
 * time) on one thread unless {@link Builder#encodeThreads} asks for more; with one, each run is
 * encoded ahead on a thread shared by every writer while the caller goes on ({@link
 * Builder#encodeAhead}). The file is the same either way.
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
    List<Integer> statisticsOffFieldIds,
    List<BloomFilterColumn> bloomFilterColumns,
    String createdBy,
    long columnRunRows,
    long columnRunBytes,
    int encodeThreads,
    boolean encodeAhead) {

  /** Version of the JSON blob this class writes. */
  public static final int VERSION = 2;

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** libfloe's defaults (the same file it compiles in). */
  private static final ParquetWriterConfig DEFAULTS = readDefaults();

  /**
   * A bloom filter on one leaf column, by field id: sized for {@code ndv} distinct values per row
   * group (null: libfloe's default) at false positive probability {@code fpp}, then folded down to
   * what the values written need.
   */
  public record BloomFilterColumn(int fieldId, double fpp, Long ndv) {
    public BloomFilterColumn {
      if (!(fpp > 0 && fpp < 1)) {
        throw new IllegalArgumentException("a bloom filter's fpp must be in (0, 1), got " + fpp);
      }
      if (ndv != null && ndv <= 0) {
        throw new IllegalArgumentException("a bloom filter's ndv must be > 0, got " + ndv);
      }
    }
  }

  /** Where min/max/null-count statistics are kept. */
  public enum StatisticsLevel {
    NONE,
    CHUNK,
    PAGE;

    @JsonValue
    String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    static StatisticsLevel of(String name) {
      return valueOf(name.toUpperCase(Locale.ROOT));
    }
  }

  private static ParquetWriterConfig readDefaults() {
    try (InputStream in = ParquetWriterConfig.class.getResourceAsStream("writer-defaults.json")) {
      if (in == null) {
        throw new IllegalStateException("writer-defaults.json is missing from the floe-arrow-bridge jar");
      }
      return JSON.readValue(in, ParquetWriterConfig.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read libfloe's writer defaults", e);
    }
  }

  public ParquetWriterConfig {
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(statistics, "statistics");
    statisticsOffFieldIds = List.copyOf(statisticsOffFieldIds);
    bloomFilterColumns = List.copyOf(bloomFilterColumns);
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
        .statisticsOffFieldIds(statisticsOffFieldIds)
        .bloomFilterColumns(bloomFilterColumns)
        .createdBy(createdBy)
        .columnRunRows(columnRunRows)
        .columnRunBytes(columnRunBytes)
        .encodeThreads(encodeThreads)
        .encodeAhead(encodeAhead);
  }

  /** The blob libfloe reads ({@code WriterConfig} in libfloe/src/config.rs). */
  public byte[] toJsonBytes() {
    ObjectNode node = JSON.valueToTree(this);
    node.put("version", VERSION);
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  public static final class Builder {
    private String codec = DEFAULTS.codec;
    private Integer level = DEFAULTS.level;
    private long rowGroupBytes = DEFAULTS.rowGroupBytes;
    private long pageBytes = DEFAULTS.pageBytes;
    private long pageRowLimit = DEFAULTS.pageRowLimit;
    private long dictionaryPageBytes = DEFAULTS.dictionaryPageBytes;
    private boolean dictionary = DEFAULTS.dictionary;
    private StatisticsLevel statistics = DEFAULTS.statistics;
    private Integer statisticsTruncateLength = DEFAULTS.statisticsTruncateLength;
    private List<Integer> statisticsOffFieldIds = DEFAULTS.statisticsOffFieldIds;
    private List<BloomFilterColumn> bloomFilterColumns = DEFAULTS.bloomFilterColumns;
    private String createdBy = DEFAULTS.createdBy;
    private long columnRunRows = DEFAULTS.columnRunRows;
    private long columnRunBytes = DEFAULTS.columnRunBytes;
    private int encodeThreads = DEFAULTS.encodeThreads;
    private boolean encodeAhead = DEFAULTS.encodeAhead;

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

    /**
     * Leaf columns, by field id, written without min/max/null-count statistics (Iceberg's {@code
     * write.parquet.stats-enabled.column.<name> = false}); ids no leaf has are ignored.
     */
    public Builder statisticsOffFieldIds(Collection<Integer> fieldIds) {
      this.statisticsOffFieldIds = List.copyOf(fieldIds);
      return this;
    }

    /** Leaf columns written with a bloom filter in each row group. */
    public Builder bloomFilterColumns(Collection<BloomFilterColumn> columns) {
      this.bloomFilterColumns = List.copyOf(columns);
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

    /**
     * With one encode thread (default on): each run is encoded on a small pool of threads
     * shared by every writer in the process (one per core), while the call that started it
     * returns and the caller goes on handing over batches; the writer waits for it before
     * the next run or the footer. Keeps the threads upstream of the writer busy while runs are
     * encoded; the file's bytes do not depend on it. Up to one more run per file is held.
     */
    public Builder encodeAhead(boolean enabled) {
      this.encodeAhead = enabled;
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
          statisticsOffFieldIds,
          bloomFilterColumns,
          createdBy,
          columnRunRows,
          columnRunBytes,
          encodeThreads,
          encodeAhead);
    }
  }
}
