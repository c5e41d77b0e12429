package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.floe.arrow.ParquetWriterConfig;
import java.util.Map;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;

/** Table properties read as Iceberg Java's Parquet writers read them, for data and delete files. */
class WriterSettingsTest {

  @Test
  void defaultsAreIcebergs() {
    ParquetWriterConfig data = WriterSettings.of(Map.of()).parquet();
    assertEquals(TableProperties.PARQUET_COMPRESSION_DEFAULT, data.codec());
    assertNull(data.level());
    assertEquals(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES_DEFAULT, data.rowGroupBytes());
    assertEquals(TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT, data.pageBytes());
    assertEquals(TableProperties.PARQUET_PAGE_ROW_LIMIT_DEFAULT, data.pageRowLimit());
    assertEquals(TableProperties.PARQUET_DICT_SIZE_BYTES_DEFAULT, data.dictionaryPageBytes());
    assertEquals(true, data.dictionary());
    assertEquals(data, WriterSettings.forDeletes(Map.of()).parquet(), "deletes default to the data settings");
  }

  @Test
  void deleteFilesFallBackToEachDataSetting() {
    Map<String, String> properties =
        Map.of(
            TableProperties.PARQUET_COMPRESSION, "ZSTD",
            TableProperties.PARQUET_COMPRESSION_LEVEL, "7",
            TableProperties.PARQUET_PAGE_ROW_LIMIT, "5000",
            TableProperties.PARQUET_DICT_SIZE_BYTES, "1000",
            TableProperties.DELETE_PARQUET_COMPRESSION, "gzip",
            TableProperties.DELETE_PARQUET_PAGE_SIZE_BYTES, "4096",
            TableProperties.DELETE_PARQUET_ROW_GROUP_SIZE_BYTES, "65536",
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "1000000",
            WriterSettings.ENABLE_DICTIONARY, "false");
    WriterSettings data = WriterSettings.of(properties);
    WriterSettings deletes = WriterSettings.forDeletes(properties);
    assertEquals("zstd", data.parquet().codec());
    assertEquals("gzip", deletes.parquet().codec());
    // A delete codec without a delete level keeps the data level (Iceberg's deleteContext).
    assertEquals(7, deletes.parquet().level());
    assertEquals(4096, deletes.parquet().pageBytes());
    assertEquals(TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT, data.parquet().pageBytes());
    assertEquals(65536, deletes.parquet().rowGroupBytes());
    assertEquals(5000, deletes.parquet().pageRowLimit());
    assertEquals(1000, deletes.parquet().dictionaryPageBytes());
    assertEquals(false, deletes.parquet().dictionary());
    assertEquals(false, data.parquet().dictionary());
    assertEquals(1_000_000, deletes.targetFileSizeBytes());

    // A level with a codec that takes none is ignored, as Iceberg ignores it (before, every
    // writer of the table failed: "codec snappy takes no level")
    WriterSettings snappy = WriterSettings.of(Map.of(
        TableProperties.PARQUET_COMPRESSION, "snappy", TableProperties.PARQUET_COMPRESSION_LEVEL, "3"));
    assertNull(snappy.parquet().level());
    assertNull(WriterSettings.forDeletes(Map.of(TableProperties.PARQUET_COMPRESSION_LEVEL, "3",
        TableProperties.DELETE_PARQUET_COMPRESSION, "uncompressed")).parquet().level());
    // ... and taken by a delete codec that takes one, as Iceberg's deleteContext falls back to it
    assertEquals(3, WriterSettings.forDeletes(Map.of(TableProperties.PARQUET_COMPRESSION, "snappy",
        TableProperties.PARQUET_COMPRESSION_LEVEL, "3", TableProperties.DELETE_PARQUET_COMPRESSION, "zstd"))
        .parquet().level());
    assertNull(WriterSettings.of(Map.of(TableProperties.PARQUET_COMPRESSION, "snappy",
        TableProperties.PARQUET_COMPRESSION_LEVEL, "fast")).parquet().level(), "not read for a codec without levels");

    WriterSettings ownLevel =
        WriterSettings.forDeletes(Map.of(TableProperties.DELETE_PARQUET_COMPRESSION_LEVEL, "1"));
    assertEquals(1, ownLevel.parquet().level());
  }
}
