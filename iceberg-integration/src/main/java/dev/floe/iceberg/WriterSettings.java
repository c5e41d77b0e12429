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
 * per column, statistics and bloom filters ({@link #withColumnSettings}).
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
    return new WriterSettings(read(properties, DATA_FILES, unset, null), target);
  }

  /**
   * Settings for equality- and position-delete files: each {@code write.delete.parquet.*} property
   * when set, else the data file's setting -- a delete codec without a delete level keeps the data
   * level, as in Iceberg's {@code Parquet.WriteBuilder.Context.deleteContext}. Delete files roll at
   * the same target size as data files, as in Iceberg's task writers.
   */
  public static WriterSettings forDeletes(Map<String, String> properties) {
    WriterSettings data = of(properties);
    // the data level as written, not as kept: a data codec without levels drops it, a delete codec may take it
    String dataLevel = properties.get(DATA_FILES.level());
    return new WriterSettings(
        read(properties, DELETE_FILES, data.parquet(), dataLevel), data.targetFileSizeBytes());
  }

  /**
   * These settings with the per-column properties of data files, read for {@code schema} as
   * Iceberg's Parquet writer reads them (its delete files ignore them). Names of no leaf column
   * are ignored, as Iceberg does (logged there).
   *
   * <ul>
   *   <li>{@code write.parquet.stats-enabled.column.<name> = false}: the column is written without
   *       statistics, so the file's metrics have no counts or bounds for it, as Iceberg's. Float
   *       and double columns keep theirs: Iceberg takes their metrics from its value writers,
   *       which ignore the property, and floe from the footer.
   *   <li>{@code write.parquet.bloom-filter-enabled.column.<name> = true}: a bloom filter in each
   *       row group, at {@code write.parquet.bloom-filter-fpp.column.<name>} (0.01) for {@code
   *       write.parquet.bloom-filter-ndv.column.<name>} distinct values (when set). It is folded
   *       down to what the values need, so {@code write.parquet.bloom-filter-max-bytes} is not read.
   * </ul>
   */
  WriterSettings withColumnSettings(Schema schema, Map<String, String> properties) {
    List<Integer> statisticsOff = new ArrayList<>();
    PropertyUtil.propertiesWithPrefix(properties, TableProperties.PARQUET_COLUMN_STATS_ENABLED_PREFIX)
        .forEach((name, enabled) -> {
          Types.NestedField field = leaf(schema, name);
          if (!Boolean.parseBoolean(enabled) && field != null
              && field.type().typeId() != Type.TypeID.FLOAT && field.type().typeId() != Type.TypeID.DOUBLE) {
            statisticsOff.add(field.fieldId());
          }
        });
    List<ParquetWriterConfig.BloomFilterColumn> blooms = new ArrayList<>();
    PropertyUtil.propertiesWithPrefix(properties, TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX)
        .forEach((name, enabled) -> {
          Types.NestedField field = leaf(schema, name);
          if (Boolean.parseBoolean(enabled) && field != null) {
            String fpp = properties.get(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_FPP_PREFIX + name);
            String ndv = properties.get(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_NDV_PREFIX + name);
            blooms.add(new ParquetWriterConfig.BloomFilterColumn(field.fieldId(),
                fpp == null ? TableProperties.PARQUET_BLOOM_FILTER_COLUMN_FPP_DEFAULT : Double.parseDouble(fpp),
                ndv == null ? null : Long.valueOf(ndv)));
          }
        });
    if (statisticsOff.isEmpty() && blooms.isEmpty()) {
      return this;
    }
    statisticsOff.sort(null);
    blooms.sort(java.util.Comparator.comparingInt(ParquetWriterConfig.BloomFilterColumn::fieldId));
    return new WriterSettings(
        parquet.toBuilder().statisticsOffFieldIds(statisticsOff).bloomFilterColumns(blooms).build(),
        targetFileSizeBytes);
  }

  /** The leaf column of that name, or null. */
  private static Types.NestedField leaf(Schema schema, String name) {
    Types.NestedField field = schema.findField(name);
    return field != null && field.type().isPrimitiveType() ? field : null;
  }

  /**
   * These settings with {@code threads} threads encoding each file's columns and, with one,
   * runs encoded ahead or not ({@link ParquetWriterConfig.Builder#encodeAhead}).
   */
  WriterSettings withEncoding(int threads, boolean ahead) {
    return new WriterSettings(
        parquet.toBuilder().encodeThreads(threads).encodeAhead(ahead).build(), targetFileSizeBytes);
  }

  /**
   * {@code fallback} with every property of {@code keys} that is set applied to it; without a
   * level property, {@code fallbackLevel} (as written in the properties) is the level.
   */
  private static ParquetWriterConfig read(
      Map<String, String> properties, Keys keys, ParquetWriterConfig fallback, String fallbackLevel) {
    String codec = properties.get(keys.codec());
    String codecName = (codec == null ? fallback.codec() : codec).toLowerCase(Locale.ROOT);
    String level = properties.getOrDefault(keys.level(), fallbackLevel);
    return fallback.toBuilder()
        .codec(codecName)
        // Iceberg passes a level to the codecs that take one, and ignores it (unread) for the others
        .level(level != null && CODECS_WITH_LEVELS.contains(codecName) ? Integer.valueOf(level) : null)
        .rowGroupBytes(PropertyUtil.propertyAsLong(properties, keys.rowGroupBytes(), fallback.rowGroupBytes()))
        .pageBytes(PropertyUtil.propertyAsLong(properties, keys.pageBytes(), fallback.pageBytes()))
        .pageRowLimit(PropertyUtil.propertyAsLong(properties, keys.pageRows(), fallback.pageRowLimit()))
        .dictionaryPageBytes(
            PropertyUtil.propertyAsLong(properties, keys.dictionaryBytes(), fallback.dictionaryPageBytes()))
        .build();
  }
}
