package dev.floe.iceberg;

import dev.floe.arrow.ParquetWriterConfig;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The Parquet writer settings a table's properties ask for, read as Iceberg Java reads them:
 * {@code write.parquet.compression-codec} and {@code -level}, {@code row-group-size-bytes},
 * {@code page-size-bytes}, {@code page-row-limit}, {@code dict-size-bytes} and {@code
 * parquet.enable.dictionary}, with Iceberg's defaults, and the target file size files roll over at.
 * Delete files read the {@code write.delete.parquet.*} variants, each falling back to the data
 * file's setting ({@link #forDeletes}).
 */
public record WriterSettings(ParquetWriterConfig parquet, long targetFileSizeBytes) {

  /** Hadoop's key for dictionary encoding, which Iceberg passes through to parquet-java. */
  static final String ENABLE_DICTIONARY = "parquet.enable.dictionary";

  /** The property names of one kind of file. */
  private record Keys(
      String codec, String level, String rowGroupBytes, String pageBytes, String pageRows, String dictionaryBytes) {}

  private static final Keys DATA_FILES =
      new Keys(
          TableProperties.PARQUET_COMPRESSION,
          TableProperties.PARQUET_COMPRESSION_LEVEL,
          TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
          TableProperties.PARQUET_PAGE_SIZE_BYTES,
          TableProperties.PARQUET_PAGE_ROW_LIMIT,
          TableProperties.PARQUET_DICT_SIZE_BYTES);

  private static final Keys DELETE_FILES =
      new Keys(
          TableProperties.DELETE_PARQUET_COMPRESSION,
          TableProperties.DELETE_PARQUET_COMPRESSION_LEVEL,
          TableProperties.DELETE_PARQUET_ROW_GROUP_SIZE_BYTES,
          TableProperties.DELETE_PARQUET_PAGE_SIZE_BYTES,
          TableProperties.DELETE_PARQUET_PAGE_ROW_LIMIT,
          TableProperties.DELETE_PARQUET_DICT_SIZE_BYTES);

  /** Settings for data files. */
  public static WriterSettings of(Map<String, String> properties) {
    // Iceberg's defaults, and the dictionary switch, which has no separate delete-file key.
    ParquetWriterConfig unset =
        ParquetWriterConfig.builder()
            .codec(TableProperties.PARQUET_COMPRESSION_DEFAULT)
            .level(null)
            .rowGroupBytes(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES_DEFAULT)
            .pageBytes(TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT)
            .pageRowLimit(TableProperties.PARQUET_PAGE_ROW_LIMIT_DEFAULT)
            .dictionaryPageBytes(TableProperties.PARQUET_DICT_SIZE_BYTES_DEFAULT)
            .dictionary(PropertyUtil.propertyAsBoolean(properties, ENABLE_DICTIONARY, true))
            .build();
    long target =
        PropertyUtil.propertyAsLong(
            properties,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    return new WriterSettings(read(properties, DATA_FILES, unset), target);
  }

  /**
   * Settings for equality- and position-delete files: each {@code write.delete.parquet.*} property
   * when set, else the data file's setting -- a delete codec without a delete level keeps the data
   * level, as in Iceberg's {@code Parquet.WriteBuilder.Context.deleteContext}. Delete files roll at
   * the same target size as data files, as in Iceberg's task writers.
   */
  public static WriterSettings forDeletes(Map<String, String> properties) {
    WriterSettings data = of(properties);
    return new WriterSettings(read(properties, DELETE_FILES, data.parquet()), data.targetFileSizeBytes());
  }

  /**
   * These settings with {@code threads} threads encoding each file's columns and, with one,
   * runs encoded ahead or not ({@link ParquetWriterConfig.Builder#encodeAhead}).
   */
  WriterSettings withEncoding(int threads, boolean ahead) {
    return new WriterSettings(
        parquet.toBuilder().encodeThreads(threads).encodeAhead(ahead).build(), targetFileSizeBytes);
  }

  /** {@code fallback} with every property of {@code keys} that is set applied to it. */
  private static ParquetWriterConfig read(
      Map<String, String> properties, Keys keys, ParquetWriterConfig fallback) {
    String codec = properties.get(keys.codec());
    String level = properties.get(keys.level());
    return fallback.toBuilder()
        .codec((codec == null ? fallback.codec() : codec).toLowerCase(Locale.ROOT))
        .level(level == null ? fallback.level() : Integer.valueOf(level))
        .rowGroupBytes(PropertyUtil.propertyAsLong(properties, keys.rowGroupBytes(), fallback.rowGroupBytes()))
        .pageBytes(PropertyUtil.propertyAsLong(properties, keys.pageBytes(), fallback.pageBytes()))
        .pageRowLimit(PropertyUtil.propertyAsLong(properties, keys.pageRows(), fallback.pageRowLimit()))
        .dictionaryPageBytes(
            PropertyUtil.propertyAsLong(properties, keys.dictionaryBytes(), fallback.dictionaryPageBytes()))
        .build();
  }
}
