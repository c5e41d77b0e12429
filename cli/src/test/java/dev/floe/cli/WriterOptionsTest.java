package dev.floe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.floe.arrow.ParquetWriterConfig;
import java.util.Map;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Writer flags become the same settings for a standalone file and for a table. */
class WriterOptionsTest {

  private static WriterOptions parse(String... args) {
    WriterOptions options = new WriterOptions();
    new CommandLine(options).parseArgs(args);
    return options;
  }

  @Test
  void unsetFlagsKeepTheDefaultsAndSetNoProperties() {
    WriterOptions options = parse();
    assertEquals(ParquetWriterConfig.defaults(), options.config());
    assertEquals(Map.of(), options.tableProperties());
  }

  @Test
  void givenFlagsReachTheConfigAndTheTableProperties() {
    WriterOptions options =
        parse("--codec", "snappy", "--page-bytes", "64KiB", "--page-rows", "5000", "--dictionary-page-bytes", "1MiB");
    ParquetWriterConfig config = options.config();
    assertEquals("snappy", config.codec());
    assertEquals(64 * 1024, config.pageBytes());
    assertEquals(5000, config.pageRowLimit());
    assertEquals(1024 * 1024, config.dictionaryPageBytes());
    assertEquals(
        Map.of(
            TableProperties.PARQUET_COMPRESSION, "snappy",
            TableProperties.PARQUET_PAGE_SIZE_BYTES, "65536",
            TableProperties.PARQUET_PAGE_ROW_LIMIT, "5000",
            TableProperties.PARQUET_DICT_SIZE_BYTES, "1048576"),
        options.tableProperties());
  }

  @Test
  void levelsOutsideTheCodecsRangeAreNamed() {
    assertNull(parse("--level", "22").invalidFlag());
    assertEquals("--level for zstd must be 1..22, got 0", parse("--level", "0").invalidFlag());
    assertNull(parse("--codec", "gzip", "--level", "0").invalidFlag());
    assertEquals("--level for gzip must be 0..9, got 10", parse("--codec", "gzip", "--level", "10").invalidFlag());
    assertEquals("--level for brotli must be 0..11, got -1", parse("--codec", "brotli", "--level", "-1").invalidFlag());
    assertEquals(
        "--level goes with zstd, gzip or brotli; snappy takes no level",
        parse("--codec", "snappy", "--level", "1").invalidFlag());
  }
}
