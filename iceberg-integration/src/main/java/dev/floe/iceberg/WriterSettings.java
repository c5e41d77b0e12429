package dev.floe.iceberg;

import dev.floe.arrow.ParquetWriterConfig;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The Parquet writer settings a table's properties ask for: {@code write.parquet.compression-codec}
 * and {@code -level}, {@code row-group-size-bytes}, {@code page-size-bytes}, {@code dict-size-bytes},
 * with Iceberg's defaults, and the target file size files roll over at.
 */
public record WriterSettings(ParquetWriterConfig parquet, long targetFileSizeBytes) {

  public static WriterSettings of(Map<String, String> properties) {
    String codec =
        properties
            .getOrDefault(TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT)
            .toLowerCase(Locale.ROOT);
    String level = properties.get(TableProperties.PARQUET_COMPRESSION_LEVEL);
    ParquetWriterConfig config =
        ParquetWriterConfig.builder()
            .codec(codec)
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
            .dictionaryPageBytes(
                PropertyUtil.propertyAsLong(
                    properties,
                    TableProperties.PARQUET_DICT_SIZE_BYTES,
                    TableProperties.PARQUET_DICT_SIZE_BYTES_DEFAULT))
            .build();
    long target =
        PropertyUtil.propertyAsLong(
            properties,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    return new WriterSettings(config, target);
  }
}
