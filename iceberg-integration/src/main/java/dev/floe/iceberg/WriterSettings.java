package dev.floe.iceberg;

import dev.floe.arrow.ParquetWriterConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The Parquet writer settings a table's properties ask for, read as Iceberg Java reads them:
 * {@code write.parquet.compression-codec} and {@code -level}, {@code row-group-size-bytes},
 * {@code page-size-bytes}, {@code page-row-limit}, {@code dict-size-bytes} and {@code
 * parquet.enable.dictionary}, with Iceberg's defaults, and the target file size files roll over at;
 * per column, {@code write.parquet.stats-enabled.column.*} ({@link #withColumnStatistics}).
 * Delete files read the {@code write.delete.parquet.*} variants, each falling back to the data
 * file's setting ({@link #forDeletes}).
 */
public record WriterSettings(ParquetWriterConfig parquet, long targetFileSizeBytes) {

  /** The codecs whose level Iceberg's Parquet writer sets (zstd, gzip, brotli). */
  private static final Set<String> CODECS_WITH_LEVELS = Set.of("zstd", "gzip", "brotli");

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
   * These settings with the leaf columns that {@code write.parquet.stats-enabled.column.<name> =
   * false} names in {@code schema} written without statistics, as Iceberg's Parquet writer writes
   * them; the file's metrics then have no counts or bounds for them, as Iceberg's. Float and
   * double columns keep their statistics: Iceberg takes their metrics from its value writers,
   * which ignore the property, and floe from the footer. Names of no leaf are ignored, as Iceberg
   * does (logged there). For data files: Iceberg's delete files ignore the property.
   */
  WriterSettings withColumnStatistics(Schema schema, Map<String, String> properties) {
    List<Integer> off = new ArrayList<>();
    PropertyUtil.propertiesWithPrefix(properties, TableProperties.PARQUET_COLUMN_STATS_ENABLED_PREFIX)
        .forEach((name, enabled) -> {
          Types.NestedField field = schema.findField(name);
          if (!Boolean.parseBoolean(enabled) && field != null && field.type().isPrimitiveType()
              && field.type().typeId() != Type.TypeID.FLOAT && field.type().typeId() != Type.TypeID.DOUBLE) {
            off.add(field.fieldId());
          }
        });
    if (off.isEmpty()) {
      return this;
    }
    off.sort(null);
    return new WriterSettings(parquet.toBuilder().statisticsOffFieldIds(off).build(), targetFileSizeBytes);
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
    String codecName = (codec == null ? fallback.codec() : codec).toLowerCase(Locale.ROOT);
    Integer levelValue = level == null ? fallback.level() : Integer.valueOf(level);
    return fallback.toBuilder()
        .codec(codecName)
        // Iceberg passes a level to the codecs that take one and ignores it for the others
        .level(CODECS_WITH_LEVELS.contains(codecName) ? levelValue : null)
        .rowGroupBytes(PropertyUtil.propertyAsLong(properties, keys.rowGroupBytes(), fallback.rowGroupBytes()))
        .pageBytes(PropertyUtil.propertyAsLong(properties, keys.pageBytes(), fallback.pageBytes()))
        .pageRowLimit(PropertyUtil.propertyAsLong(properties, keys.pageRows(), fallback.pageRowLimit()))
        .dictionaryPageBytes(
            PropertyUtil.propertyAsLong(properties, keys.dictionaryBytes(), fallback.dictionaryPageBytes()))
        .build();
  }
}
