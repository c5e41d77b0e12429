package dev.floe.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.internal.NativeDiagnostics;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** Misuse and failures become Java exceptions with clear messages; the JVM keeps running. */
class NativeParquetWriterErrorsTest extends AllocatorTest {
  @TempDir Path dir;



  private static Schema longs(String name) {
    return new Schema(
        List.of(
            new Field(
                name,
                new FieldType(true, new ArrowType.Int(64, true), null, Map.of("PARQUET:field_id", "1")),
                null)));
  }

  private VectorSchemaRoot longBatch(String name, long... values) {
    VectorSchemaRoot root = VectorSchemaRoot.create(longs(name), allocator);
    BigIntVector v = (BigIntVector) root.getVector(0);
    for (int i = 0; i < values.length; i++) {
      v.setSafe(i, values[i]);
    }
    root.setRowCount(values.length);
    return root;
  }

  private NativeParquetWriter openLongs(Path file) {
    return NativeParquetWriter.open(file, longs("price"), ParquetWriterConfig.defaults(), allocator);
  }

  @Test
  void aNativePanicBecomesAnExceptionAndTheJvmCarriesOn() throws Exception {
    NativePanicException e =
        assertThrows(NativePanicException.class, () -> NativeDiagnostics.panic("boom at the boundary"));
    assertTrue(e.getMessage().contains("boom at the boundary"), e.getMessage());
    assertEquals(NativeException.PANIC, e.code());

    // Still alive and working: a normal write afterwards succeeds.
    Path file = dir.resolve("after-panic.parquet");
    try (NativeParquetWriter writer = openLongs(file);
        VectorSchemaRoot root = longBatch("price", 1, 2, 3)) {
      writer.write(root);
      assertEquals(3, writer.finish().rowCount());
    }
    assertEquals(3, ParquetReadBack.rows(file).size());
  }

  @Test
  void finishTwiceAndUseAfterFinishOrCloseThrowIllegalState() {
    Path file = dir.resolve("state.parquet");
    NativeParquetWriter writer = openLongs(file);
    try (VectorSchemaRoot root = longBatch("price", 1)) {
      writer.write(root);
      writer.finish();
      IllegalStateException twice = assertThrows(IllegalStateException.class, writer::finish);
      assertTrue(twice.getMessage().contains("finished"), twice.getMessage());
      assertThrows(IllegalStateException.class, () -> writer.write(root));
      writer.close();
      writer.close(); // idempotent
      IllegalStateException closed = assertThrows(IllegalStateException.class, () -> writer.write(root));
      assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
      assertThrows(IllegalStateException.class, writer::finish);
      assertThrows(IllegalStateException.class, writer::estimatedSize);
      assertThrows(IllegalStateException.class, writer::bufferedBytes);
      assertThrows(IllegalStateException.class, writer::flushRowGroup);
    }
    assertTrue(Files.exists(file), "a finished file stays after close");
  }

  @Test
  void closingWithoutFinishingDiscardsTheFile() {
    Path file = dir.resolve("abandoned.parquet");
    try (NativeParquetWriter writer = openLongs(file);
        VectorSchemaRoot root = longBatch("price", 1, 2)) {
      writer.write(root);
      assertNull(writer.summary());
    }
    assertFalse(Files.exists(file), "an unfinished file must not look complete");
  }

  @Test
  void aBatchWithAnotherSchemaIsRejectedByName() throws Exception {
    Path file = dir.resolve("mismatch.parquet");
    try (NativeParquetWriter writer = openLongs(file)) {
      try (VectorSchemaRoot renamed = longBatch("cost", 5)) {
        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, () -> writer.write(renamed));
        assertTrue(e.getMessage().contains("'cost'") && e.getMessage().contains("'price'"), e.getMessage());
      }
      Schema ints =
          new Schema(List.of(new Field("price", FieldType.nullable(new ArrowType.Int(32, true)), null)));
      try (VectorSchemaRoot wrongType = VectorSchemaRoot.create(ints, allocator)) {
        ((IntVector) wrongType.getVector(0)).setSafe(0, 7);
        wrongType.setRowCount(1);
        SchemaMismatchException e = assertThrows(SchemaMismatchException.class, () -> writer.write(wrongType));
        assertTrue(e.getMessage().contains("Int32") && e.getMessage().contains("Int64"), e.getMessage());
      }
      // The writer is still usable after a rejected batch.
      try (VectorSchemaRoot ok = longBatch("price", 9)) {
        writer.write(ok);
      }
      assertEquals(1, writer.finish().rowCount());
    }
    assertEquals(List.of(Map.of("price", 9L)), ParquetReadBack.rows(file));
  }

  @Test
  void anUnwritablePathIsNamedInTheError() {
    Path file = dir.resolve("no-such-dir").resolve("x.parquet");
    NativeIOException e = assertThrows(NativeIOException.class, () -> openLongs(file));
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
  }

  @Test
  void aBadConfigIsRejectedWithTheOffendingValue() {
    ParquetWriterConfig lzo = ParquetWriterConfig.builder().codec("lzo").build();
    InvalidArgumentException e =
        assertThrows(
            InvalidArgumentException.class,
            () -> NativeParquetWriter.open(dir.resolve("c.parquet"), longs("p"), lzo, allocator));
    assertTrue(e.getMessage().contains("lzo"), e.getMessage());
  }

  @Test
  void anOutputStreamFailureSurfacesWithItsCause() {
    IOException diskFull = new IOException("disk full");
    OutputStream failing =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw diskFull;
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            throw diskFull;
          }
        };
    try (NativeParquetWriter writer =
            NativeParquetWriter.open(failing, longs("price"), ParquetWriterConfig.defaults(), allocator);
        VectorSchemaRoot root = longBatch("price", 1, 2, 3)) {
      writer.write(root);
      NativeIOException e = assertThrows(NativeIOException.class, writer::finish);
      assertSame(diskFull, e.getCause());
    }
  }

  /** An output stream that fails every write, like a full disk. */
  static OutputStream failing(IOException failure) {
    return new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        throw failure;
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        throw failure;
      }
    };
  }

  /** Values that do not compress, so a batch's pages pass the native 1 MiB output buffer. */
  static long[] noise(int rows) {
    long[] values = new long[rows];
    long x = 0x9e3779b97f4a7c15L;
    for (int i = 0; i < rows; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      values[i] = x;
    }
    return values;
  }

  @Test
  void aWriterWhoseOutputFailedRefusesEveryLaterCallAndStillCloses() {
    IOException diskFull = new IOException("disk full");
    NativeParquetWriter writer =
        NativeParquetWriter.open(failing(diskFull), longs("price"), ParquetWriterConfig.defaults(), allocator);
    try (VectorSchemaRoot big = longBatch("price", noise(400_000));
        VectorSchemaRoot small = longBatch("price", 1)) {
      writer.write(big);
      NativeIOException first = assertThrows(NativeIOException.class, writer::flushRowGroup);
      assertSame(diskFull, first.getCause());
      List<Executable> later =
          List.of(
              () -> writer.write(small),
              writer::flushRowGroup,
              writer::estimatedSize,
              writer::bufferedBytes,
              writer::finish);
      for (Executable call : later) {
        IllegalStateException refused = assertThrows(IllegalStateException.class, call);
        assertEquals("NativeParquetWriter failed earlier: " + first.getMessage(), refused.getMessage());
        assertSame(first, refused.getCause());
      }
    } finally {
      writer.close();
    }
    writer.close(); // idempotent
    IllegalStateException closed = assertThrows(IllegalStateException.class, writer::finish);
    assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
    // The allocator closing in tearDown proves the failed writer released the batch it held.
  }

  /**
   * Arrow Java's vectors take any bytes: a string that is not UTF-8, or offsets a caller set by
   * hand that go backwards, would make libfloe read strings it cannot hold (or past a buffer). The
   * batch is refused naming the column, and the writer goes on.
   */
  @Test
  void aBatchWithBrokenStringsIsRefusedByColumnAndTheWriterGoesOn() throws Exception {
    Schema strings = new Schema(List.of(
        new Field("id", new FieldType(false, new ArrowType.Int(64, true), null, Map.of("PARQUET:field_id", "1")), null),
        new Field("name", new FieldType(true, ArrowType.Utf8.INSTANCE, null, Map.of("PARQUET:field_id", "2")), null)));
    Path file = dir.resolve("strings.parquet");
    try (NativeParquetWriter writer = NativeParquetWriter.open(file, strings, ParquetWriterConfig.defaults(), allocator)) {
      try (VectorSchemaRoot latin1 = stringBatch(strings, "ok", "caf\u00e9")) {
        ((VarCharVector) latin1.getVector(1)).setSafe(1, new byte[] {'c', 'a', 'f', (byte) 0xE9});
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> writer.write(latin1));
        assertTrue(e.getMessage().contains("name") && e.getMessage().contains("UTF"), e.getMessage());
      }
      try (VectorSchemaRoot backwards = stringBatch(strings, "abc", "de", "f")) {
        VarCharVector names = (VarCharVector) backwards.getVector(1);
        names.getOffsetBuffer().setInt(2L * Integer.BYTES, 1_000); // row 1 ends beyond the data
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> writer.write(backwards));
        assertTrue(e.getMessage().contains("name") && e.getMessage().contains("offset"), e.getMessage());
      }
      try (VectorSchemaRoot ok = stringBatch(strings, "caf\u00e9")) {
        writer.write(ok);
      }
      assertEquals(1, writer.finish().rowCount());
    }
    assertEquals(List.of(Map.of("id", 0L, "name", "caf\u00e9")), ParquetReadBack.rows(file));
  }

  private VectorSchemaRoot stringBatch(Schema schema, String... names) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    for (int i = 0; i < names.length; i++) {
      ((BigIntVector) root.getVector(0)).setSafe(i, i);
      ((VarCharVector) root.getVector(1)).setSafe(i, names[i].getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    root.setRowCount(names.length);
    return root;
  }

  @Test
  void aRawArrayThatIsNotAStructIsRejectedAndReleased() {
    Path file = dir.resolve("raw.parquet");
    try (NativeParquetWriter writer = openLongs(file);
        BigIntVector bare = new BigIntVector("price", allocator);
        ArrowArray array = ArrowArray.allocateNew(allocator);
        ArrowSchema schema = ArrowSchema.allocateNew(allocator)) {
      bare.setSafe(0, 1);
      bare.setValueCount(1);
      Data.exportVector(allocator, bare, null, array, schema);
      NativeException e =
          assertThrows(
              NativeException.class, () -> writer.write(array.memoryAddress(), schema.memoryAddress()));
      assertTrue(e.getMessage().contains("price") || e.getMessage().contains("struct"), e.getMessage());
      schema.release();
    }
    // The allocator closing in tearDown proves the moved array was released despite the failure.
  }

  @Test
  void aRawArrayGivenToAFinishedWriterIsReleased() throws Exception {
    try (NativeParquetWriter writer = openLongs(dir.resolve("raw-late.parquet"));
        VectorSchemaRoot root = longBatch("price", 4, 5);
        Exported raw = Exported.of(allocator, root)) {
      writer.finish();
      assertThrows(IllegalStateException.class, () -> writer.write(raw.array().memoryAddress(), raw.schema().memoryAddress()));
    }
    // The allocator closing in tearDown proves the moved array was released although refused.
  }

  /**
   * An array its producer already released (its buffers freed) is refused by name, not read, and
   * the writer goes on. Before, libfloe read the freed buffers and the JVM crashed.
   */
  @Test
  void aRawArrayAlreadyReleasedIsRefusedNotRead() throws Exception {
    Path file = dir.resolve("raw-released.parquet");
    try (NativeParquetWriter writer = openLongs(file);
        VectorSchemaRoot root = longBatch("price", 4, 5);
        Exported raw = Exported.of(allocator, root)) {
      raw.array().release();
      NativeException e = assertThrows(
          NativeException.class, () -> writer.write(raw.array().memoryAddress(), raw.schema().memoryAddress()));
      assertTrue(e.getMessage().contains("already released"), e.getMessage());
      writer.write(root);
      writer.finish();
    }
    assertEquals(List.of(Map.of("price", 4L), Map.of("price", 5L)), ParquetReadBack.rows(file));
  }

  /** Without its schema a raw array is refused (and released): the writer's types would size its buffers. */
  @Test
  void aRawArrayWithoutItsSchemaIsRefusedAndReleased() {
    try (NativeParquetWriter writer = openLongs(dir.resolve("raw-no-schema.parquet"));
        VectorSchemaRoot root = longBatch("price", 4, 5);
        Exported raw = Exported.of(allocator, root)) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> writer.write(raw.array().memoryAddress(), 0));
      assertTrue(e.getMessage().contains("arrowSchemaAddress"), e.getMessage());
    }
    // The allocator closing in tearDown proves the moved array was released although refused.
  }

  @Test
  void rawCDataStructsAreAccepted() throws Exception {
    Path file = dir.resolve("raw-ok.parquet");
    try (NativeParquetWriter writer = openLongs(file);
        VectorSchemaRoot root = longBatch("price", 4, 5);
        Exported raw = Exported.of(allocator, root)) {
      writer.write(raw.array().memoryAddress(), raw.schema().memoryAddress());
      assertInstanceOf(ParquetFileSummary.class, writer.finish());
    }
    assertEquals(List.of(Map.of("price", 4L), Map.of("price", 5L)), ParquetReadBack.rows(file));
  }

  /** A root exported into C Data structs of its own; closing releases the schema and frees both structs. */
  private record Exported(ArrowArray array, ArrowSchema schema) implements AutoCloseable {
    static Exported of(BufferAllocator allocator, VectorSchemaRoot root) {
      ArrowArray array = ArrowArray.allocateNew(allocator);
      ArrowSchema schema = ArrowSchema.allocateNew(allocator);
      Data.exportVectorSchemaRoot(allocator, root, null, array, schema);
      return new Exported(array, schema);
    }

    @Override
    public void close() {
      schema.release();
      schema.close();
      array.close();
    }
  }
}
