package dev.floe.cli;

import dev.floe.arrow.ParquetWriterConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.TableProperties;
import picocli.CommandLine.Option;

/**
 * Parquet writer settings as flags. Unset flags keep the defaults (Iceberg's: zstd level 3, 128 MiB
 * row groups, 1 MiB pages of at most about 20,000 rows, 2 MiB dictionary pages). For a table they
 * become its {@code write.parquet.*} properties.
 */
final class WriterOptions {
  /**
   * The codecs, with the levels parquet-rs accepts for each and the one libfloe writes when none is
   * given (none: the codec takes no level).
   */
  enum Codec {
    zstd(1, 22, 3),
    snappy,
    gzip(0, 9, 6),
    lz4,
    brotli(0, 11, 1),
    uncompressed;

    private final Integer minLevel;
    private final Integer maxLevel;
    private final Integer defaultLevel;

    Codec() {
      this(null, null, null);
    }

    Codec(Integer minLevel, Integer maxLevel, Integer defaultLevel) {
      this.minLevel = minLevel;
      this.maxLevel = maxLevel;
      this.defaultLevel = defaultLevel;
    }

    /** The level written when none is given, or null for a codec without levels. */
    Integer defaultLevel() {
      return defaultLevel;
    }

    /** Why {@code level} does not fit this codec, or null if it does. */
    String levelProblem(int level) {
      if (minLevel == null) {
        return "--level goes with zstd, gzip or brotli; " + name() + " takes no level";
      }
      if (level < minLevel || level > maxLevel) {
        return "--level for " + name() + " must be " + minLevel + ".." + maxLevel + ", got " + level;
      }
      return null;
    }
  }

  @Option(names = "--codec", paramLabel = "CODEC", description = "Compression: ${COMPLETION-CANDIDATES} (default: zstd).")
  Codec codec;

  @Option(names = "--level", paramLabel = "N", description = "Compression level (default: the codec's; zstd 3).")
  Integer level;

  @Option(
      names = "--row-group-bytes",
      paramLabel = "SIZE",
      converter = ByteSize.class,
      description = "Close a row group at this encoded size, e.g. 128MiB (default).")
  Long rowGroupBytes;

  @Option(names = "--page-bytes", paramLabel = "SIZE", converter = ByteSize.class, description = "Data page size (default: 1MiB).")
  Long pageBytes;

  @Option(
      names = "--page-rows",
      paramLabel = "N",
      description = "Rows per data page, best effort (default: 20000).")
  Long pageRows;

  @Option(
      names = "--dictionary-page-bytes",
      paramLabel = "SIZE",
      converter = ByteSize.class,
      description = "Dictionary page limit, then plain encoding (default: 2MiB).")
  Long dictionaryPageBytes;

  /**
   * Names the first flag that is out of range (a usage error), or returns null. A level without
   * {@code --codec} is checked against zstd, the default codec.
   */
  String invalidFlag() {
    if (level != null) {
      String problem = (codec == null ? Codec.zstd : codec).levelProblem(level);
      if (problem != null) {
        return problem;
      }
    }
    Map<String, Long> sizes = new LinkedHashMap<>();
    sizes.put("--row-group-bytes", rowGroupBytes);
    sizes.put("--page-bytes", pageBytes);
    sizes.put("--page-rows", pageRows);
    sizes.put("--dictionary-page-bytes", dictionaryPageBytes);
    for (Map.Entry<String, Long> size : sizes.entrySet()) {
      if (size.getValue() != null && size.getValue() <= 0) {
        return size.getKey() + " must be > 0, got " + size.getValue();
      }
    }
    return null;
  }

  /** The settings for a standalone file. */
  ParquetWriterConfig config() {
    ParquetWriterConfig defaults = ParquetWriterConfig.defaults();
    return ParquetWriterConfig.builder()
        .codec(codec == null ? defaults.codec() : codec.name())
        .level(level)
        .rowGroupBytes(rowGroupBytes == null ? defaults.rowGroupBytes() : rowGroupBytes)
        .pageBytes(pageBytes == null ? defaults.pageBytes() : pageBytes)
        .pageRowLimit(pageRows == null ? defaults.pageRowLimit() : pageRows)
        .dictionaryPageBytes(dictionaryPageBytes == null ? defaults.dictionaryPageBytes() : dictionaryPageBytes)
        .build();
  }

  /** The flags that were given, as the table properties that mean the same. */
  Map<String, String> tableProperties() {
    Map<String, String> properties = new LinkedHashMap<>();
    if (codec != null) {
      properties.put(TableProperties.PARQUET_COMPRESSION, codec.name());
    }
    if (level != null) {
      properties.put(TableProperties.PARQUET_COMPRESSION_LEVEL, level.toString());
    }
    if (rowGroupBytes != null) {
      properties.put(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, rowGroupBytes.toString());
    }
    if (pageBytes != null) {
      properties.put(TableProperties.PARQUET_PAGE_SIZE_BYTES, pageBytes.toString());
    }
    if (pageRows != null) {
      properties.put(TableProperties.PARQUET_PAGE_ROW_LIMIT, pageRows.toString());
    }
    if (dictionaryPageBytes != null) {
      properties.put(TableProperties.PARQUET_DICT_SIZE_BYTES, dictionaryPageBytes.toString());
    }
    return properties;
  }
}
