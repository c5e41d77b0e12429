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

  /** Settings for data files. */
  public static WriterSettings of(Map<String, String> properties) {
    String codec =
        properties.getOrDefault(TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT);
    String level = properties.get(TableProperties.PARQUET_COMPRESSION_LEVEL);
    ParquetWriterConfig config =
        ParquetWriterConfig.builder()
            .codec(codec.toLowerCase(Locale.ROOT))
            .level(level == null ? null : Integer.parseInt(level))
            .rowGroupBytes(
                PropertyUtil.propertyAsLong(
                    properties,
                    TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
                    TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES_DEFAULT))
            .pageBytes(
                PropertyUtil.propertyAsLong(
                    properties,
                    TableProperties.PARQUET_PAGE_SIZE_BYTES,
                    TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT))
            .pageRowLimit(
                PropertyUtil.propertyAsLong(
                    properties,
                    TableProperties.PARQUET_PAGE_ROW_LIMIT,
                    TableProperties.PARQUET_PAGE_ROW_LIMIT_DEFAULT))
            .dictionaryPageBytes(
                PropertyUtil.propertyAsLong(
                    properties,
                    TableProperties.PARQUET_DICT_SIZE_BYTES,
                    TableProperties.PARQUET_DICT_SIZE_BYTES_DEFAULT))
            .dictionary(PropertyUtil.propertyAsBoolean(properties, ENABLE_DICTIONARY, true))
            .build();
    return new WriterSettings(config, targetFileSize(properties));
  }

  /**
   * Settings for equality- and position-delete files: each {@code write.delete.parquet.*} property
   * when set, else the data file's setting -- a delete codec without a delete level keeps the data
   * level, as in Iceberg's {@code Parquet.WriteBuilder.Context.deleteContext}. Delete files roll at
   * the same target size as data files, as in Iceberg's task writers.
   */
  public static WriterSettings forDeletes(Map<String, String> properties) {
    WriterSettings data = of(properties);
    ParquetWriterConfig dataParquet = data.parquet();
    String codec = properties.get(TableProperties.DELETE_PARQUET_COMPRESSION);
    String level = properties.get(TableProperties.DELETE_PARQUET_COMPRESSION_LEVEL);
    ParquetWriterConfig config =
        dataParquet.toBuilder()
            .codec(codec == null ? dataParquet.codec() : codec.toLowerCase(Locale.ROOT))
            .level(level == null ? dataParquet.level() : Integer.valueOf(level))
            .rowGroupBytes(
                PropertyUtil.propertyAsLong(
                    properties, TableProperties.DELETE_PARQUET_ROW_GROUP_SIZE_BYTES, dataParquet.rowGroupBytes()))
            .pageBytes(
                PropertyUtil.propertyAsLong(
                    properties, TableProperties.DELETE_PARQUET_PAGE_SIZE_BYTES, dataParquet.pageBytes()))
            .pageRowLimit(
                PropertyUtil.propertyAsLong(
                    properties, TableProperties.DELETE_PARQUET_PAGE_ROW_LIMIT, dataParquet.pageRowLimit()))
            .dictionaryPageBytes(
                PropertyUtil.propertyAsLong(
                    properties, TableProperties.DELETE_PARQUET_DICT_SIZE_BYTES, dataParquet.dictionaryPageBytes()))
            .build();
    return new WriterSettings(config, data.targetFileSizeBytes());
  }

  /** These settings with {@code threads} threads encoding each file's columns. */
  WriterSettings withEncodeThreads(int threads) {
    return new WriterSettings(parquet.toBuilder().encodeThreads(threads).build(), targetFileSizeBytes);
  }

  private static long targetFileSize(Map<String, String> properties) {
    return PropertyUtil.propertyAsLong(
        properties,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
  }
}
