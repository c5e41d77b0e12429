package dev.floe.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.PrimitiveType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The footer facts libfloe returns equal what parquet-java reads from the same footer. */
class FooterFactsTest extends AllocatorTest {
  @TempDir Path dir;



  private ParquetFileSummary write(Path file, ParquetWriterConfig config, int batches) {
    try (NativeParquetWriter writer = NativeParquetWriter.open(file, AllTypes.schema(), config, allocator)) {
      for (int b = 0; b < batches; b++) {
        try (VectorSchemaRoot root = AllTypes.batch(allocator, 2000, b)) {
          writer.write(root);
        }
      }
      return writer.finish();
    }
  }

  @Test
  void summaryEqualsTheFooterParquetJavaReads() throws Exception {
    Path file = dir.resolve("facts.parquet");
    ParquetWriterConfig config = ParquetWriterConfig.builder().rowGroupBytes(512 * 1024).build();
    ParquetFileSummary summary = write(file, config, 6);
    assertSameFacts(summary, file);
    assertTrue(summary.rowGroups().size() > 1, "several row groups");
  }

  @Test
  void truncatedStatisticsAreMarkedInexact() throws Exception {
    Path file = dir.resolve("truncated.parquet");
    ParquetWriterConfig config = ParquetWriterConfig.builder().statisticsTruncateLength(4).build();
    ParquetFileSummary summary = write(file, config, 1);
    assertSameFacts(summary, file);
    ParquetFileSummary.ColumnChunk text =
        summary.rowGroups().getFirst().columns().stream()
            .filter(c -> c.dotPath().equals("text"))
            .findFirst()
            .orElseThrow();
    assertTrue(text.max().length <= 4, "max truncated to 4 bytes");
    assertTrue(!text.maxExact(), "a truncated max is inexact");
  }

  @Test
  void withoutStatisticsThereAreNoBounds() throws Exception {
    Path file = dir.resolve("nostats.parquet");
    ParquetWriterConfig config =
        ParquetWriterConfig.builder().statistics(ParquetWriterConfig.StatisticsLevel.NONE).build();
    ParquetFileSummary summary = write(file, config, 1);
    for (ParquetFileSummary.ColumnChunk c : summary.rowGroups().getFirst().columns()) {
      assertEquals(null, c.min(), c.dotPath());
      assertEquals(null, c.max(), c.dotPath());
    }
    assertEquals(Files.size(file), summary.fileSize());
  }

  static void assertSameFacts(ParquetFileSummary summary, Path file) throws Exception {
    ParquetMetadata footer = ParquetReadBack.footer(file);
    assertEquals(Files.size(file), summary.fileSize());
    // The raw footer equals the file's: ... | FileMetaData | length (u32 LE) | "PAR1".
    byte[] bytes = Files.readAllBytes(file);
    int length = java.nio.ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
    assertArrayEquals(
        java.util.Arrays.copyOfRange(bytes, bytes.length - 8 - length, bytes.length - 8), summary.footer());
    List<BlockMetaData> blocks = footer.getBlocks();
    assertEquals(blocks.size(), summary.rowGroups().size());
    long rows = 0;
    for (int g = 0; g < blocks.size(); g++) {
      BlockMetaData block = blocks.get(g);
      ParquetFileSummary.RowGroup group = summary.rowGroups().get(g);
      rows += block.getRowCount();
      assertEquals(block.getStartingPos(), group.offset(), "row group " + g + " offset");
      assertEquals(block.getRowCount(), group.rowCount());
      assertEquals(block.getTotalByteSize(), group.totalByteSize());
      assertEquals(block.getCompressedSize(), group.compressedSize());
      assertEquals(block.getColumns().size(), group.columns().size());
      for (int c = 0; c < block.getColumns().size(); c++) {
        ColumnChunkMetaData expected = block.getColumns().get(c);
        ParquetFileSummary.ColumnChunk actual = group.columns().get(c);
        String where = "row group " + g + " column " + expected.getPath().toDotString();
        assertEquals(Arrays.asList(expected.getPath().toArray()), actual.path(), where);
        PrimitiveType type = expected.getPrimitiveType();
        assertEquals(type.getId() == null ? null : type.getId().intValue(), actual.fieldId(), where);
        // parquet-java calls BYTE_ARRAY "BINARY"; the summary uses the format's names.
        String physical = type.getPrimitiveTypeName().name().replace("BINARY", "BYTE_ARRAY");
        assertEquals(physical, actual.physicalType(), where);
        assertEquals(expected.getCodec().name(), actual.codec(), where);
        assertEquals(expected.getTotalSize(), actual.compressedSize(), where);
        assertEquals(expected.getTotalUncompressedSize(), actual.uncompressedSize(), where);
        assertEquals(expected.getValueCount(), actual.valueCount(), where);
        Statistics<?> stats = expected.getStatistics();
        if (stats.isEmpty() || !stats.hasNonNullValue()) {
          assertEquals(null, actual.min(), where);
        } else {
          assertArrayEquals(stats.getMinBytes(), actual.min(), where + " min");
          assertArrayEquals(stats.getMaxBytes(), actual.max(), where + " max");
        }
        if (!stats.isEmpty() && stats.isNumNullsSet()) {
          assertEquals(stats.getNumNulls(), actual.nullCount().longValue(), where + " nulls");
        }
      }
    }
    assertEquals(footer.getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum(), summary.rowCount());
    assertEquals(rows, summary.rowCount());
  }
}
