package dev.floe.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Java Arrow -> native Parquet -> parquet-java, compared value by value. */
class NativeParquetWriterRoundTripTest extends AllocatorTest {
  @TempDir Path dir;



  private Path writeBatches(ParquetWriterConfig config, int... batchSizes) {
    Path file = dir.resolve("all-types.parquet");
    try (NativeParquetWriter writer =
        NativeParquetWriter.open(file, AllTypes.schema(), config, allocator)) {
      for (int b = 0; b < batchSizes.length; b++) {
        try (VectorSchemaRoot root = AllTypes.batch(allocator, batchSizes[b], b)) {
          writer.write(root);
        }
      }
      writer.finish();
    }
    return file;
  }

  private List<Map<String, Object>> expectedRows(int... batchSizes) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (int b = 0; b < batchSizes.length; b++) {
      try (VectorSchemaRoot root = AllTypes.batch(allocator, batchSizes[b], b)) {
        rows.addAll(ArrowValues.rows(root));
      }
    }
    return rows;
  }

  @Test
  void everyTypeRoundTripsExactlyAcrossBatchesWithNullsAndAnEmptyBatch() throws Exception {
    int[] batches = {500, 0, 1, 777};
    Path file = writeBatches(ParquetWriterConfig.defaults(), batches);

    List<Map<String, Object>> expected = expectedRows(batches);
    List<Map<String, Object>> actual = ParquetReadBack.rows(file);
    assertEquals(expected.size(), actual.size());
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(expected.get(i), actual.get(i), "row " + i);
    }
  }

  @Test
  void emptyFileHasSchemaAndNoRows() throws Exception {
    Path file = writeBatches(ParquetWriterConfig.defaults());
    assertEquals(List.of(), ParquetReadBack.rows(file));
    ParquetMetadata footer = ParquetReadBack.footer(file);
    assertEquals(AllTypes.schema().getFields().size(), footer.getFileMetaData().getSchema().getFieldCount());
  }

  @Test
  void everyFieldIdLandsInTheParquetSchema() throws Exception {
    Path file = writeBatches(ParquetWriterConfig.defaults(), 10);
    MessageType parquet = ParquetReadBack.footer(file).getFileMetaData().getSchema();

    Map<String, Integer> expected = new HashMap<>();
    for (Field f : AllTypes.schema().getFields()) {
      collectIds("", f, expected);
    }
    Map<String, Integer> actual = new HashMap<>();
    collectIds("", parquet, actual);
    assertEquals(expected, actual);
    assertEquals(28, expected.size(), "ids on every field, list elements and map keys/values included");
  }

  private static void collectIds(String prefix, Field field, Map<String, Integer> out) {
    String id = field.getMetadata().get(AllTypes.FIELD_ID);
    String path = prefix + field.getName();
    if (id != null) {
      out.put(path, Integer.parseInt(id));
    }
    for (Field child : field.getChildren()) {
      collectIds(id != null ? path + "." : prefix, child, out);
    }
  }

  /** Parquet nests list elements under "list" and map entries under "key_value"; skip those groups. */
  private static void collectIds(String prefix, GroupType group, Map<String, Integer> out) {
    for (Type t : group.getFields()) {
      String path = prefix + t.getName();
      boolean wrapper = t.getId() == null;
      if (!wrapper) {
        out.put(path, t.getId().intValue());
      }
      if (!t.isPrimitive()) {
        collectIds(wrapper ? prefix : path + ".", t.asGroupType(), out);
      }
    }
  }

  @Test
  void physicalAndLogicalTypesAreTheOnesIcebergReads() throws Exception {
    Path file = writeBatches(ParquetWriterConfig.defaults(), 10);
    MessageType s = ParquetReadBack.footer(file).getFileMetaData().getSchema();

    assertEquals(PrimitiveTypeName.INT32, s.getType("dec9").asPrimitiveType().getPrimitiveTypeName());
    assertEquals(PrimitiveTypeName.INT64, s.getType("dec18").asPrimitiveType().getPrimitiveTypeName());
    assertEquals(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, s.getType("dec38").asPrimitiveType().getPrimitiveTypeName());
    assertEquals(LogicalTypeAnnotation.decimalType(10, 38), s.getType("dec38").getLogicalTypeAnnotation());
    assertEquals(LogicalTypeAnnotation.dateType(), s.getType("day").getLogicalTypeAnnotation());
    assertEquals(LogicalTypeAnnotation.timeType(false, TimeUnit.MICROS), s.getType("time_us").getLogicalTypeAnnotation());
    assertEquals(LogicalTypeAnnotation.timestampType(false, TimeUnit.MICROS), s.getType("ts_us").getLogicalTypeAnnotation());
    assertEquals(LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS), s.getType("ts_us_utc").getLogicalTypeAnnotation());
    assertEquals(LogicalTypeAnnotation.timestampType(false, TimeUnit.NANOS), s.getType("ts_ns").getLogicalTypeAnnotation());
    assertEquals(LogicalTypeAnnotation.timestampType(true, TimeUnit.NANOS), s.getType("ts_ns_utc").getLogicalTypeAnnotation());
    assertEquals(LogicalTypeAnnotation.stringType(), s.getType("large_text").getLogicalTypeAnnotation());
    assertEquals(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, s.getType("uuid").asPrimitiveType().getPrimitiveTypeName());
    assertEquals(16, s.getType("uuid").asPrimitiveType().getTypeLength());
    assertEquals(Type.Repetition.REQUIRED, s.getType("id").getRepetition());
    assertEquals(LogicalTypeAnnotation.listType(), s.getType("tags").getLogicalTypeAnnotation());
    assertEquals(LogicalTypeAnnotation.mapType(), s.getType("attrs").getLogicalTypeAnnotation());
  }

  @Test
  void compressesWithZstdAtTheConfiguredLevel() throws Exception {
    ParquetWriterConfig level3 = ParquetWriterConfig.builder().codec("zstd").level(3).build();
    Path file = writeBatches(level3, 3000);
    ParquetMetadata footer = ParquetReadBack.footer(file);
    for (BlockMetaData block : footer.getBlocks()) {
      for (ColumnChunkMetaData column : block.getColumns()) {
        assertEquals(CompressionCodecName.ZSTD, column.getCodec(), column.getPath().toDotString());
      }
    }
    // The level is not recorded in Parquet; recompressing a stored page proves it.
    assertTrue(ZstdPages.everyPageIsZstdAtLevel(file, 3), "pages are zstd level 3");
    assertTrue(!ZstdPages.everyPageIsZstdAtLevel(file, 19), "level 19 would give other bytes");
  }

  @Test
  void rowGroupsSplitAtTheConfiguredByteSize() throws Exception {
    long limit = 256 * 1024;
    ParquetWriterConfig config = ParquetWriterConfig.builder().rowGroupBytes(limit).build();
    int[] batches = new int[20];
    java.util.Arrays.fill(batches, 1000);
    Path file = writeBatches(config, batches);

    List<BlockMetaData> blocks = ParquetReadBack.footer(file).getBlocks();
    assertTrue(blocks.size() >= 4, "expected several row groups, got " + blocks.size());
    long rows = 0;
    for (int i = 0; i < blocks.size(); i++) {
      BlockMetaData block = blocks.get(i);
      rows += block.getRowCount();
      // The writer closes a group once its encoded estimate reaches the limit, so none is far past it.
      assertTrue(block.getTotalByteSize() <= 2 * limit, "row group " + i + " is " + block.getTotalByteSize());
      if (i < blocks.size() - 1) {
        assertTrue(block.getTotalByteSize() >= limit / 4, "row group " + i + " is " + block.getTotalByteSize());
      }
    }
    assertEquals(20_000, rows);
    assertEquals(expectedRows(batches), ParquetReadBack.rows(file));
    assertTrue(Files.size(file) > 0);
  }

  @Test
  void encodeThreadsAndColumnRunsDoNotChangeTheFile() throws Exception {
    int[] batches = {500, 0, 1, 777, 1200, 300};
    ParquetWriterConfig.Builder small = ParquetWriterConfig.builder().rowGroupBytes(64 * 1024).columnRunRows(700);
    byte[] single = Files.readAllBytes(writeBatches(small.encodeThreads(1).build(), batches));
    byte[] parallel = Files.readAllBytes(writeBatches(small.encodeThreads(4).build(), batches));
    assertTrue(java.util.Arrays.equals(single, parallel), "4 encode threads wrote other bytes than 1");
    Path file = dir.resolve("all-types.parquet");
    assertTrue(ParquetReadBack.footer(file).getBlocks().size() > 1, "several row groups");
    assertEquals(expectedRows(batches), ParquetReadBack.rows(file));
  }

  /**
   * Runs encoded ahead on libfloe's shared threads (the default), and the held rows sent ahead
   * before the footer as a task writer does before closing its files, write the bytes the calling
   * thread writes alone; the Java buffers they held are all released (the allocator is checked
   * after each test).
   */
  @Test
  void encodingAheadDoesNotChangeTheFile() throws Exception {
    int[] batches = {500, 0, 1, 777, 1200, 300, 900};
    ParquetWriterConfig.Builder small = ParquetWriterConfig.builder().rowGroupBytes(64 * 1024).columnRunRows(700);
    byte[] here = Files.readAllBytes(writeBatches(small.encodeAhead(false).build(), batches));
    Path file = dir.resolve("ahead.parquet");
    try (NativeParquetWriter writer =
        NativeParquetWriter.open(file, AllTypes.schema(), small.encodeAhead(true).build(), allocator)) {
      for (int b = 0; b < batches.length; b++) {
        try (VectorSchemaRoot root = AllTypes.batch(allocator, batches[b], b)) {
          writer.write(root);
        }
      }
      writer.encodeHeld();
      writer.finish();
    }
    assertTrue(java.util.Arrays.equals(here, Files.readAllBytes(file)), "encoding ahead wrote other bytes");
    assertTrue(ParquetReadBack.footer(file).getBlocks().size() > 1, "several row groups");
    assertEquals(expectedRows(batches), ParquetReadBack.rows(file));
  }

  @Test
  void encodedHeldRowsAreAwaitedWithoutClosingTheRowGroup() throws Exception {
    int[] batches = {900, 1100, 1000, 1000};
    Path file = dir.resolve("awaited.parquet");
    try (NativeParquetWriter writer =
        NativeParquetWriter.open(file, AllTypes.schema(), ParquetWriterConfig.builder().encodeAhead(true).build(),
            allocator)) {
      for (int b = 0; b < batches.length; b++) {
        try (VectorSchemaRoot root = AllTypes.batch(allocator, batches[b], b)) {
          writer.write(root);
        }
        if (b == 2) {
          // The held batches are Java's buffers, exported: encoded and awaited, they are let go.
          assertTrue(allocator.getAllocatedMemory() > 0, "batches held");
          writer.encodeHeld();
          writer.awaitEncoded();
          assertEquals(0, allocator.getAllocatedMemory(), "batches released");
        }
      }
      writer.finish();
    }
    assertEquals(1, ParquetReadBack.footer(file).getBlocks().size(), "one row group");
    assertEquals(expectedRows(batches), ParquetReadBack.rows(file));
  }

  @Test
  void encodeThreadsMustBePositive() {
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> ParquetWriterConfig.builder().encodeThreads(0).build());
    assertTrue(e.getMessage().contains("encodeThreads"), e.getMessage());
  }
}
