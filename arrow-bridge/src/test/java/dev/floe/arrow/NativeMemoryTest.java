package dev.floe.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Open/write/close cycles do not leak Arrow buffers or grow native memory. */
class NativeMemoryTest {
  /** Stated bound: RSS may move by allocator noise, never by a per-cycle leak (10,000 x ~40 KiB). */
  static final long RSS_GROWTH_BOUND_BYTES = 64L * 1024 * 1024;

  @TempDir Path dir;

  @Test
  void tenThousandCyclesStayWithinTheRssBound() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot batch = AllTypes.batch(allocator, 50, 1)) {
      CountingStream sink = new CountingStream();
      long batchBytes = allocator.getAllocatedMemory();
      runCycles(allocator, batch, sink, 1_000); // warm up the JIT, allocator arenas and caches
      System.gc();
      long before = rssBytes();
      runCycles(allocator, batch, sink, 10_000);
      System.gc();
      long after = rssBytes();
      assertTrue(
          after - before < RSS_GROWTH_BOUND_BYTES,
          "RSS grew by " + (after - before) / 1024 + " KiB over 10,000 cycles");
      assertTrue(sink.bytes > 11_000L * 1000, "every cycle wrote a file");
      // Every cycle's C Data structs were freed: only the batch itself is still allocated.
      assertEquals(batchBytes, allocator.getAllocatedMemory());
    }
    // Closing the allocator above throws if anything leaked.
  }

  @Test
  void pathWritersLeaveNoBuffersBehind() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot batch = AllTypes.batch(allocator, 20, 2)) {
      for (int i = 0; i < 200; i++) {
        Path file = dir.resolve("f" + (i % 4) + ".parquet");
        try (NativeParquetWriter writer =
            NativeParquetWriter.open(file, batch.getSchema(), ParquetWriterConfig.defaults(), allocator)) {
          writer.write(batch);
          if (i % 2 == 0) {
            writer.finish();
          }
        }
      }
      assertTrue(Files.exists(dir.resolve("f0.parquet")));
    }
  }

  /**
   * A split or a write whose allocator runs out while the batch is exported (its C Data structs,
   * then its schema, which Arrow exports before the array) fails with Arrow's exception and leaves
   * the caller's batch as it was: once the batch is closed nothing of it is left allocated. Every
   * limit below what the structs and the schema take is tried. (Beyond that Arrow 19 itself leaks
   * when it runs out: its StructVectorLoader leaves the struct it was filling open.)
   */
  @Test
  void splitsABoundedAllocatorRefusesWhileExportingLeaveNoBuffersBehind() {
    long exportBytes = structsAndSchemaExportBytes(AllTypes.schema());
    try (BufferAllocator allocator = new RootAllocator();
        NativePartitioner partitioner =
            NativePartitioner.create(AllTypes.schema(), List.of(new PartitionField("id_bucket", 1, "bucket[4]")))) {
      for (long limit = 0; limit < exportBytes; limit++) {
        VectorSchemaRoot batch = AllTypes.batch(allocator, 50, 1);
        try (BufferAllocator bounded = allocator.newChildAllocator("bounded", 0, limit)) {
          assertThrows(OutOfMemoryException.class, () -> partitioner.split(batch, bounded).close());
        } finally {
          batch.close();
        }
        assertEquals(0, allocator.getAllocatedMemory(), "left allocated after a split with a limit of " + limit + " bytes");
      }
    }
  }

  /** The same for a writer: opening it exports the schema too. */
  @Test
  void writesABoundedAllocatorRefusesWhileExportingLeaveNoBuffersBehind() {
    long exportBytes = structsAndSchemaExportBytes(AllTypes.schema());
    int openedThenRefused = 0;
    try (BufferAllocator allocator = new RootAllocator()) {
      for (long limit = 0; limit < exportBytes; limit++) {
        VectorSchemaRoot batch = AllTypes.batch(allocator, 50, 1);
        try (BufferAllocator bounded = allocator.newChildAllocator("bounded", 0, limit)) {
          NativeParquetWriter writer;
          try {
            writer = NativeParquetWriter.open(
                OutputStream.nullOutputStream(), batch.getSchema(), ParquetWriterConfig.defaults(), bounded);
          } catch (OutOfMemoryException refusedAtOpen) {
            continue;
          }
          try (writer) {
            assertThrows(OutOfMemoryException.class, () -> writer.write(batch));
            openedThenRefused++;
          }
        } finally {
          batch.close();
          assertEquals(0, allocator.getAllocatedMemory(), "left allocated after a write with a limit of " + limit + " bytes");
        }
      }
    }
    assertTrue(openedThenRefused > 0, "some limits let the writer open and refused the write");
  }

  /** What a batch's export takes before Arrow exports its array: the two C Data structs and the schema. */
  private static long structsAndSchemaExportBytes(org.apache.arrow.vector.types.pojo.Schema schema) {
    try (BufferAllocator probe = new RootAllocator();
        ArrowArray array = ArrowArray.allocateNew(probe);
        ArrowSchema ffiSchema = ArrowSchema.allocateNew(probe)) {
      Data.exportSchema(probe, schema, null, ffiSchema);
      long bytes = probe.getAllocatedMemory();
      ffiSchema.release();
      return bytes;
    }
  }

  private static void runCycles(
      BufferAllocator allocator, VectorSchemaRoot batch, OutputStream sink, int cycles) {
    for (int i = 0; i < cycles; i++) {
      try (NativeParquetWriter writer =
          NativeParquetWriter.open(sink, batch.getSchema(), ParquetWriterConfig.defaults(), allocator)) {
        writer.write(batch);
        writer.finish();
      }
    }
  }

  static long rssBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new IllegalStateException("no VmRSS in /proc/self/status");
  }

  private static final class CountingStream extends OutputStream {
    long bytes;

    @Override
    public void write(int b) {
      bytes++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      bytes += len;
    }
  }
}
