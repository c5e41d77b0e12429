package dev.floe.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a library user can get wrong at the boundary (helper-85's attack): Arrow whose buffers are
 * smaller than its offsets say, calls back into floe from a writer's own OutputStream, a message
 * batch closed or grown under a decode, types floe does not write. Each is refused with an exception, nothing is freed under
 * a running call, and the objects go on working.
 */
class LibraryMisuseTest extends AllocatorTest {
  private static final Schema ROWS = new Schema(List.of(
      field("id", new ArrowType.Int(64, true), false, 1),
      field("name", ArrowType.Utf8.INSTANCE, true, 2),
      field("blob", ArrowType.Binary.INSTANCE, true, 3)));

  @TempDir Path dir;

  @Test
  void aColumnWhoseLastOffsetPointsPastItsDataIsRefusedBeforeLibfloeReadsIt() throws Exception {
    Path file = dir.resolve("rows.parquet");
    try (NativeParquetWriter writer = NativeParquetWriter.open(file, ROWS, ParquetWriterConfig.defaults(), allocator)) {
      for (long lastOffset : new long[] {-1, Integer.MAX_VALUE - 16}) { // -1: just past the data buffer
        for (int column : new int[] {1, 2}) {
          try (VectorSchemaRoot root = rows(3)) {
            setLastOffset(root, column, lastOffset);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> writer.write(root));
            assertTrue(refused.getMessage().startsWith("column '" + ROWS.getFields().get(column).getName() + "' is not valid Arrow"),
                refused.getMessage());
          }
        }
      }
      try (VectorSchemaRoot root = rows(3)) {
        writer.write(root); // refused batches leave the writer usable
      }
      assertEquals(3, writer.finish().rowCount());
    }
    List<Map<String, Object>> back = ParquetReadBack.rows(file);
    assertEquals(List.of("name0", "name1", "name2"), back.stream().map(r -> r.get("name")).toList());
  }

  @Test
  void aFixedWidthColumnLongerThanItsBufferIsRefused() throws Exception {
    Schema longs = new Schema(List.of(field("id", new ArrowType.Int(64, true), false, 1)));
    try (NativeParquetWriter writer =
            NativeParquetWriter.open(dir.resolve("longs.parquet"), longs, ParquetWriterConfig.defaults(), allocator);
        BigIntVector ids = new BigIntVector(longs.getFields().getFirst(), allocator);
        var validity = allocator.buffer(8);
        var data = allocator.buffer(64)) {
      validity.setOne(0, 8);
      data.setZero(0, 64);
      // what a corrupt IPC stream loads: a field node of 1M rows over 64 bytes (a root's
      // setRowCount would grow the buffers; a reader's root is built with its count)
      ids.loadFieldBuffers(new ArrowFieldNode(1_000_000, 0), List.of(validity, data));
      VectorSchemaRoot root = new VectorSchemaRoot(longs.getFields(), List.of(ids), 1_000_000);
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> writer.write(root));
      assertTrue(refused.getMessage().startsWith("column 'id' is not valid Arrow"), refused.getMessage());
    }
  }

  @Test
  void thePartitionerRefusesTheSameColumns() {
    try (NativePartitioner partitioner = NativePartitioner.create(ROWS, List.of(new PartitionField("id_bucket", 1, "bucket[4]")));
        VectorSchemaRoot root = rows(3)) {
      setLastOffset(root, 1, -1);
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> partitioner.split(root, allocator));
      assertTrue(refused.getMessage().startsWith("column 'name' is not valid Arrow"), refused.getMessage());
    }
  }

  /**
   * The writer's own stream closes it and uses it. Before, the close freed the native writer
   * under the call writing to the stream, which went on in freed memory.
   */
  @Test
  void aWriterIsNeitherClosedNorUsedFromItsOwnOutputStream() throws Exception {
    AtomicReference<NativeParquetWriter> self = new AtomicReference<>();
    List<RuntimeException> refused = new ArrayList<>();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    OutputStream out = new OutputStream() {
      @Override
      public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) {
        bytes.write(b, off, len);
        if (self.get() != null && refused.isEmpty()) {
          for (Runnable call : List.<Runnable>of(self.get()::close, self.get()::estimatedSize, self.get()::flushRowGroup)) {
            try {
              call.run();
            } catch (RuntimeException e) {
              refused.add(e);
            }
          }
        }
      }
    };
    try (NativeParquetWriter writer = NativeParquetWriter.open(out, ROWS, ParquetWriterConfig.defaults(), allocator);
        VectorSchemaRoot root = rows(200_000)) { // more than libfloe buffers before it calls the stream
      self.set(writer);
      writer.write(root);
      writer.flushRowGroup(); // the stream is called from here
      assertEquals(3, refused.size(), refused.toString());
      for (RuntimeException e : refused) {
        assertTrue(e instanceof IllegalStateException && e.getMessage().contains("from inside a NativeParquetWriter's OutputStream"),
            e.toString());
      }
      writer.write(root);
      assertEquals(400_000, writer.finish().rowCount());
    }
    Path file = Files.write(dir.resolve("streamed.parquet"), bytes.toByteArray());
    assertEquals(400_000, ParquetReadBack.rows(file).size());
  }

  /**
   * A decode into a writer whose stream closes the decoder, clears the message batch, closes it
   * and grows it: each is refused, and the decode's rows all land. Before, the decoder was freed
   * under its own call, and a batch close or growth during a decode leaked its memory.
   */
  @Test
  void aDecodeIntoAWriterKeepsItsDecoderAndItsMessagesWhileTheStreamRuns() throws Exception {
    Schema events = new Schema(List.of(field("id", new ArrowType.Int(64, true), false, 1), field("name", ArrowType.Utf8.INSTANCE, true, 2)));
    AtomicReference<Runnable> misuse = new AtomicReference<>();
    List<RuntimeException> refused = new ArrayList<>();
    OutputStream out = new OutputStream() {
      @Override
      public void write(int b) {}

      @Override
      public void write(byte[] b, int off, int len) {
        Runnable once = misuse.getAndSet(null);
        if (once != null) {
          once.run();
        }
      }
    };
    ParquetWriterConfig smallGroups = ParquetWriterConfig.builder().columnRunRows(0).encodeAhead(false).rowGroupBytes(1 << 16).build();
    Path file = dir.resolve("decoded.parquet");
    try (NativeParquetWriter writer = NativeParquetWriter.open(out, events, smallGroups, allocator);
        NativeJsonDecoder decoder = NativeJsonDecoder.create(events, JsonDecoderConfig.defaults());
        MessageBatch messages = new MessageBatch(1 << 20, 16)) {
      for (int i = 0; i < 200_000; i++) { // more than libfloe buffers before it calls the stream
        messages.add(("{\"id\":" + scrambled(i) + ",\"name\":\"" + Long.toHexString(scrambled(-i)) + "\"}")
            .getBytes(StandardCharsets.UTF_8));
      }
      long capacity = messages.capacityBytes();
      misuse.set(() -> {
        for (Runnable call : List.<Runnable>of(decoder::close, messages::clear, messages::close,
            () -> messages.add(new byte[(int) (capacity - messages.byteSize() + 1)]))) { // grows the batch
          try {
            call.run();
          } catch (RuntimeException e) {
            refused.add(e);
          }
        }
      });
      DecodeStats stats = decoder.decodeInto(messages, writer, BadRecordPolicy.FAIL);
      assertEquals(200_000, stats.rows());
      assertEquals(4, refused.size(), refused.toString());
      for (RuntimeException e : refused) {
        assertTrue(e instanceof IllegalStateException, e.toString());
      }
      assertTrue(refused.get(3).getMessage().startsWith("MessageBatch is being decoded"), refused.get(3).getMessage());
      assertEquals(200_000, messages.size()); // the refused add added nothing
      assertEquals(capacity, messages.capacityBytes());
      assertEquals(200_000, decoder.decodeInto(messages, writer, BadRecordPolicy.FAIL).rows()); // both still open
      assertEquals(400_000, writer.finish().rowCount());
      messages.close(); // refused before, so it frees now
      assertThrows(IllegalStateException.class, messages::capacityBytes);
    }
  }

  /** A union panicked in parquet-rs; a month-day-nano interval failed the writer at its first batch. */
  @Test
  void typesFloeDoesNotWriteAreRefusedWhenTheWriterOpens() {
    Field union = new Field("u", FieldType.nullable(new ArrowType.Union(UnionMode.Sparse, new int[] {0})),
        List.of(field("i", new ArrowType.Int(32, true), true, 3)));
    Field interval = field("span", new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO), true, 4);
    Field dictionary = new Field("kind", new FieldType(true, new ArrowType.Int(32, true),
        new DictionaryEncoding(1, false, null), Map.of("PARQUET:field_id", "5")), null);
    for (Field unsupported : List.of(union, interval, dictionary)) {
      Schema schema = new Schema(List.of(field("id", new ArrowType.Int(64, true), false, 1),
          new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(unsupported))));
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
          () -> NativeParquetWriter.open(dir.resolve("t.parquet"), schema, ParquetWriterConfig.defaults(), allocator));
      assertTrue(refused.getMessage().startsWith("field 's." + unsupported.getName() + "' is "), refused.getMessage());
      assertThrows(IllegalArgumentException.class, () -> NativeJsonDecoder.create(schema, JsonDecoderConfig.defaults()));
    }
  }

  @Test
  void aDictionaryEncodedColumnIsRefusedByName() throws Exception {
    Schema plain = new Schema(List.of(field("kind", ArrowType.Utf8.INSTANCE, true, 1)));
    Field encoded = new Field("kind", new FieldType(true, new ArrowType.Int(32, true),
        new DictionaryEncoding(1, false, null), Map.of("PARQUET:field_id", "1")), null);
    try (NativeParquetWriter writer = NativeParquetWriter.open(dir.resolve("d.parquet"), plain, ParquetWriterConfig.defaults(), allocator);
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(encoded)), allocator)) {
      root.setRowCount(0);
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> writer.write(root));
      assertEquals("column 'kind' is dictionary-encoded: floe writes plain values, decode it first", refused.getMessage());
    }
    // inside a struct too: Arrow's export of such a root ended in its own NullPointerException
    FieldType struct = new FieldType(true, ArrowType.Struct.INSTANCE, null, Map.of("PARQUET:field_id", "1"));
    Schema nested = new Schema(List.of(new Field("s", struct, List.of(field("kind", ArrowType.Utf8.INSTANCE, true, 2)))));
    try (NativeParquetWriter writer = NativeParquetWriter.open(dir.resolve("n.parquet"), nested, ParquetWriterConfig.defaults(), allocator);
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(new Field("s", struct, List.of(encoded)))), allocator)) {
      root.setRowCount(0);
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> writer.write(root));
      assertEquals("column 's.kind' is dictionary-encoded: floe writes plain values, decode it first", refused.getMessage());
    }
  }

  @Test
  void aNullPayloadIsAnEmptyMessageOnly() {
    try (MessageBatch messages = new MessageBatch()) {
      assertThrows(IllegalArgumentException.class, () -> messages.add(null, 0, -5));
      assertThrows(IllegalArgumentException.class, () -> messages.add(null, 3, 0));
      assertEquals(0, messages.byteSize());
      messages.add(null, 0, 0);
      assertEquals(1, messages.size());
    }
  }

  @Test
  void aClosedPartitionedBatchSaysSo() {
    try (NativePartitioner partitioner = NativePartitioner.create(ROWS, List.of(new PartitionField("id_bucket", 1, "bucket[4]")));
        VectorSchemaRoot root = rows(8)) {
      PartitionedBatch split = partitioner.split(root, allocator);
      assertTrue(split.groupCount() > 0);
      split.close();
      assertEquals("PartitionedBatch is closed", assertThrows(IllegalStateException.class, split::groupCount).getMessage());
      assertThrows(IllegalStateException.class, split::partitions);
    }
  }

  @Test
  void aDecodeWithoutAPolicyIsRefused() {
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(ROWS, JsonDecoderConfig.defaults());
        MessageBatch messages = new MessageBatch()) {
      messages.add("{\"id\":1}".getBytes(StandardCharsets.UTF_8));
      assertThrows(NullPointerException.class, () -> decoder.decode(messages, null, allocator));
    }
  }

  private VectorSchemaRoot rows(int count) {
    VectorSchemaRoot root = VectorSchemaRoot.create(ROWS, allocator);
    for (int i = 0; i < count; i++) {
      ((BigIntVector) root.getVector(0)).setSafe(i, scrambled(i)); // incompressible: the stream gets bytes early
      ((VarCharVector) root.getVector(1)).setSafe(i, ("name" + i).getBytes(StandardCharsets.UTF_8));
      ((VarBinaryVector) root.getVector(2)).setSafe(i, new byte[] {(byte) i});
    }
    root.setRowCount(count);
    return root;
  }

  private static long scrambled(long i) {
    return (i + 1) * 0x9E3779B97F4A7C15L;
  }

  /** Points column {@code column}'s last offset at {@code offset}, or just past its data buffer for -1. */
  private static void setLastOffset(VectorSchemaRoot root, int column, long offset) {
    var vector = (org.apache.arrow.vector.BaseVariableWidthVector) root.getVector(column);
    long value = offset < 0 ? vector.getDataBuffer().capacity() + 1 : offset;
    vector.getOffsetBuffer().setInt((long) root.getRowCount() * Integer.BYTES, (int) value);
  }

  private static Field field(String name, ArrowType type, boolean nullable, int id) {
    return new Field(name, new FieldType(nullable, type, null, Map.of("PARQUET:field_id", String.valueOf(id))), null);
  }
}
