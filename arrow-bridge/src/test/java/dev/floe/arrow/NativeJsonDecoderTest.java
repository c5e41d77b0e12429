package dev.floe.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeJsonDecoderTest extends AllocatorTest {
  @TempDir Path dir;



  private static Field field(String name, int id, boolean nullable, ArrowType type, Field... children) {
    return AllTypes.field(name, id, nullable, type, children);
  }

  private static final Schema EVENTS =
      new Schema(
          List.of(
              field("id", 1, false, new ArrowType.Int(64, true)),
              field("name", 2, true, ArrowType.Utf8.INSTANCE),
              field("price", 3, true, new ArrowType.Decimal(10, 2, 128)),
              field("at", 4, true, new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
              field("at_utc", 5, true, new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
              new Field(
                  "uid",
                  new FieldType(true, new ArrowType.FixedSizeBinary(16), null,
                      Map.of("PARQUET:field_id", "6", "ARROW:extension:name", "arrow.uuid")),
                  null),
              field("point", 7, true, ArrowType.Struct.INSTANCE,
                  field("x", 8, false, new ArrowType.Int(64, true))),
              field("tags", 9, true, ArrowType.List.INSTANCE,
                  field("element", 10, true, ArrowType.Utf8.INSTANCE)),
              field("attrs", 11, true, new ArrowType.Map(false),
                  field("entries", -1, false, ArrowType.Struct.INSTANCE,
                      field("key", 12, false, ArrowType.Utf8.INSTANCE),
                      field("value", 13, true, new ArrowType.Int(64, true))))));

  private static final String GOOD_1 =
      "{\"id\":1,\"name\":\"caf\\u00e9 \\ud83d\\ude00\",\"price\":12.34,\"at\":\"2026-11-30 12:00:01.12\","
          + "\"at_utc\":\"2026-11-30T13:00:00+01:00\",\"uid\":\"123e4567-e89b-12d3-a456-426614174000\","
          + "\"point\":{\"x\":7},\"tags\":[\"a\",null],\"attrs\":{\"k\":5}}";
  private static final String GOOD_2 = "{\"attrs\":null,\"id\":2,\"unknown\":[1,2,{}]}";

  private static final MessageBatchTest.Partition ORDERS_3 = new MessageBatchTest.Partition("orders", 3);

  private MessageBatch batchOf(String... messages) {
    MessageBatch batch = new MessageBatch();
    for (int i = 0; i < messages.length; i++) {
      batch.add(messages[i].getBytes(StandardCharsets.UTF_8), ORDERS_3, 100 + i);
    }
    return batch;
  }

  @Test
  void decodesEveryKindOfValueExactlyIntoJavaArrow() {
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(EVENTS, JsonDecoderConfig.defaults());
        MessageBatch batch = batchOf(GOOD_1, GOOD_2);
        DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.FAIL, allocator)) {
      VectorSchemaRoot root = decoded.root();
      assertEquals(2, root.getRowCount());
      assertEquals(0, decoded.rejectedCount());
      assertEquals(EVENTS, root.getSchema(), "schema, field ids included, comes back intact");
      assertEquals(List.of(1L, 2L), List.of(((BigIntVector) root.getVector("id")).get(0), ((BigIntVector) root.getVector("id")).get(1)));
      assertEquals("café 😀", new String(((VarCharVector) root.getVector("name")).get(0), StandardCharsets.UTF_8));
      assertEquals(new BigDecimal("12.34"), ((DecimalVector) root.getVector("price")).getObject(0));
      assertEquals(LocalDateTime.of(2026, 11, 30, 12, 0, 1, 120_000_000), ((TimeStampMicroVector) root.getVector("at")).getObject(0));
      assertEquals(1_796_040_000_000_000L, ((TimeStampMicroTZVector) root.getVector("at_utc")).get(0));
      assertEquals("123e4567e89b12d3a456426614174000", HexFormat.of().formatHex(((FixedSizeBinaryVector) root.getVector("uid")).get(0)));
      assertEquals(Map.of("x", 7L), ArrowValues.value(root.getVector("point"), 0));
      assertEquals(java.util.Arrays.asList("a", null), ArrowValues.value(root.getVector("tags"), 0));
      assertEquals(Map.of("k", 5L), ArrowValues.value(root.getVector("attrs"), 0));
      for (String nullable : List.of("name", "price", "at", "uid", "point", "tags", "attrs")) {
        assertTrue(root.getVector(nullable).isNull(1), nullable + " is null in row 2");
      }
      assertTrue(((StructVector) root.getVector("point")).isNull(1));
      assertTrue(((ListVector) root.getVector("tags")).isNull(1));
      assertTrue(((MapVector) root.getVector("attrs")).isNull(1));
    }
  }

  private static final String[] MIXED = {
    "{\"id\":\"not a number\"}", // 0 bad
    GOOD_1,
    "{\"id\":5,\"price\":1.234}", // 2 bad: too many fraction digits
    GOOD_2,
    "\u0000garbage", // 4 bad
  };

  @Test
  void collectReturnsEachBadMessageWithIndexReasonSourceAndBytes() {
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(EVENTS, JsonDecoderConfig.defaults());
        MessageBatch batch = batchOf(MIXED);
        DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.DEAD_LETTER, allocator)) {
      assertEquals(2, decoded.root().getRowCount());
      assertEquals(List.of(Map.of("id", 1L), Map.of("id", 2L)),
          List.of(Map.of("id", ArrowValues.value(decoded.root().getVector("id"), 0)),
              Map.of("id", ArrowValues.value(decoded.root().getVector("id"), 1))));
      assertEquals(3, decoded.rejectedCount());
      List<RejectedMessage> bad = decoded.rejected();
      assertEquals(List.of(0, 2, 4), bad.stream().map(RejectedMessage::index).toList());
      assertTrue(bad.get(0).reason().contains("field 'id': expected int64, found string"), bad.get(0).reason());
      assertTrue(bad.get(1).reason().contains("field 'price'") && bad.get(1).reason().contains("fraction digits"), bad.get(1).reason());
      assertTrue(bad.get(2).reason().contains("invalid JSON"), bad.get(2).reason());
      assertEquals("message 2 (topic orders, partition 3, offset 102)", bad.get(1).describe());
      assertArrayEquals(MIXED[4].getBytes(StandardCharsets.UTF_8), bad.get(2).payload());
      assertEquals(104, bad.get(2).position());
      assertSame(ORDERS_3, bad.get(2).source());
    }
  }

  @Test
  void unknownFieldsAreReportedByPathAndKindOnlyWhenAsked() {
    String[] messages = {
      "{\"id\":1,\"coupon\":\"x\",\"extra\":{\"a\":1}}",
      "{\"id\":2,\"coupon\":7}",
      "{\"coupon\":7.5,\"id\":\"bad\"}", // rejected after its unknown field was counted
    };
    JsonDecoderConfig reporting = JsonDecoderConfig.defaults().withReportUnknownFields(true);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(EVENTS, reporting);
        MessageBatch batch = batchOf(messages);
        DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.DEAD_LETTER, allocator)) {
      assertEquals(2, decoded.root().getRowCount());
      List<UnknownField> unknown = new ArrayList<>(decoder.takeUnknownFields());
      unknown.sort(java.util.Comparator.comparing(UnknownField::path));
      assertEquals(List.of(
              new UnknownField("coupon", List.of("string", "integer", "float"), 3),
              new UnknownField("extra", List.of("object"), 1)),
          unknown, "the rejected third message counts too");
      assertEquals(List.of(), decoder.takeUnknownFields(), "taking them forgets them");
    }
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(EVENTS, JsonDecoderConfig.defaults());
        MessageBatch batch = batchOf(messages);
        DecodedBatch ignored = decoder.decode(batch, BadRecordPolicy.DEAD_LETTER, allocator)) {
      assertEquals(List.of(), decoder.takeUnknownFields(), "not counted by default");
    }
  }

  @Test
  void describedUnknownFieldsCarryShapesAndTooWideValuesTheTypeTheyNeed() {
    String[] messages = {
      "{\"id\":1,\"extra\":{\"a\":1,\"b\":[1.5,null]}}",
      "{\"id\":2,\"extra\":{\"a\":2.5},\"price\":123456789012.5}",
    };
    JsonDecoderConfig describing = JsonDecoderConfig.defaults().withDescribeUnknownFields(true);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(EVENTS, describing);
        MessageBatch batch = batchOf(messages);
        DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.DEAD_LETTER, allocator)) {
      assertEquals(1, decoded.root().getRowCount(), "the too-wide price is still rejected");
      List<UnknownField> report = new ArrayList<>(decoder.takeUnknownFields());
      report.sort(java.util.Comparator.comparing(UnknownField::path));
      ValueShape extra = new ValueShape.ObjectShape(List.of(
          new ValueShape.Field("a", new ValueShape.Scalar("float")),
          new ValueShape.Field("b", new ValueShape.ArrayShape(new ValueShape.Scalar("float")))));
      assertEquals(List.of(
              new UnknownField("extra", List.of("object"), 2, java.util.OptionalInt.empty(),
                  java.util.Optional.of(extra), java.util.OptionalInt.empty(), java.util.Optional.empty(),
                  java.util.Optional.of("extra")),
              new UnknownField("price", List.of("decimal"), 1, java.util.OptionalInt.empty(),
                  java.util.Optional.empty(), java.util.OptionalInt.of(3), java.util.Optional.of("decimal(14,2)"),
                  java.util.Optional.empty())),
          report);
    }
  }

  @Test
  void skipCountsAndFailNamesTheFirstBadRecord() {
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(EVENTS, JsonDecoderConfig.defaults());
        MessageBatch batch = batchOf(MIXED)) {
      try (DecodedBatch skipped = decoder.decode(batch, BadRecordPolicy.SKIP, allocator)) {
        assertEquals(2, skipped.root().getRowCount());
        assertEquals(3, skipped.rejectedCount());
        assertEquals(List.of(), skipped.rejected());
      }
      BadRecordException e =
          assertThrows(BadRecordException.class, () -> decoder.decode(batch, BadRecordPolicy.FAIL, allocator));
      assertTrue(e.getMessage().startsWith("message 0 (topic orders, partition 3, offset 100): field 'id'"), e.getMessage());
    }
  }

  @Test
  void decodeIntoAWriterKeepsTheBatchNativeAndWritesTheSameRows() throws Exception {
    Path file = dir.resolve("decoded.parquet");
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(EVENTS, JsonDecoderConfig.defaults());
        MessageBatch batch = batchOf(MIXED);
        NativeParquetWriter writer = NativeParquetWriter.open(file, EVENTS, ParquetWriterConfig.defaults(), allocator)) {
      DecodeStats stats = decoder.decodeInto(batch, writer, BadRecordPolicy.DEAD_LETTER);
      assertEquals(2, stats.rows());
      assertEquals(3, stats.rejectedCount());
      assertEquals(3, stats.rejected().size());
      assertThrows(BadRecordException.class, () -> decoder.decodeInto(batch, writer, BadRecordPolicy.FAIL));
      assertEquals(2, writer.finish().rowCount(), "a failed batch writes nothing");

      try (DecodedBatch viaJava = decoder.decode(batch, BadRecordPolicy.SKIP, allocator)) {
        assertEquals(ArrowValues.rows(viaJava.root()), ParquetReadBack.rows(file));
      }
    }
  }

  @Test
  void aWriterWithAnotherSchemaIsRefused() {
    Schema other = new Schema(List.of(field("id", 1, false, new ArrowType.Int(32, true))));
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(EVENTS, JsonDecoderConfig.defaults());
        MessageBatch batch = batchOf(GOOD_2);
        NativeParquetWriter writer =
            NativeParquetWriter.open(dir.resolve("x.parquet"), other, ParquetWriterConfig.defaults(), allocator)) {
      SchemaMismatchException e =
          assertThrows(SchemaMismatchException.class, () -> decoder.decodeInto(batch, writer, BadRecordPolicy.SKIP));
      assertTrue(e.getMessage().contains("has 9 fields, writer expects 1"), e.getMessage());
      // Refused up front: neither the decoder nor the writer failed.
      try (DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.FAIL, allocator)) {
        assertEquals(1, decoded.root().getRowCount());
      }
      assertEquals(0, writer.finish().rowCount());
    }
  }

  @Test
  void aFailedWriterIsRefusedBeforeDecodingAndTheDecoderCarriesOn() {
    Schema ids = new Schema(List.of(field("id", 1, false, new ArrowType.Int(64, true))));
    java.io.IOException diskFull = new java.io.IOException("disk full");
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(ids, JsonDecoderConfig.defaults());
        MessageBatch batch = batchOf("{\"id\":1}", "{\"id\":2}");
        NativeParquetWriter writer =
            NativeParquetWriter.open(
                NativeParquetWriterErrorsTest.failing(diskFull), ids, ParquetWriterConfig.defaults(), allocator);
        VectorSchemaRoot big = VectorSchemaRoot.create(ids, allocator)) {
      long[] noise = NativeParquetWriterErrorsTest.noise(400_000);
      BigIntVector values = (BigIntVector) big.getVector(0);
      for (int i = 0; i < noise.length; i++) {
        values.setSafe(i, noise[i]);
      }
      big.setRowCount(noise.length);
      writer.write(big);
      NativeIOException failure = assertThrows(NativeIOException.class, writer::flushRowGroup);

      IllegalStateException refused =
          assertThrows(IllegalStateException.class, () -> decoder.decodeInto(batch, writer, BadRecordPolicy.FAIL));
      assertSame(failure, refused.getCause());
      try (DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.FAIL, allocator)) {
        assertEquals(2, decoded.root().getRowCount());
      }
    }
  }

  @Test
  void strictModeAndLimitsComeFromTheConfig() {
    JsonDecoderConfig config = JsonDecoderConfig.defaults().withStrict(true).withMaxMessageBytes(64);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(EVENTS, config);
        MessageBatch batch = batchOf("{\"id\":1,\"surprise\":true}", "{\"id\":2,\"name\":\"" + "x".repeat(80) + "\"}");
        DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.DEAD_LETTER, allocator)) {
      assertEquals(0, decoded.root().getRowCount());
      assertTrue(decoded.rejected().get(0).reason().contains("unknown field 'surprise'"));
      assertTrue(decoded.rejected().get(1).reason().contains("exceeds the limit of 64 bytes"));
    }
  }

  /**
   * Nesting is parsed on the calling thread's stack, so its depth is bounded: a deeper limit is
   * refused (a 10,000-level message under a limit of 20,000 overflowed the stack and ended the
   * JVM), and the deepest allowed, described, fits a thread of Java's default stack (1 MiB).
   */
  @Test
  void theDepthLimitIsBoundedAndTheDeepestMessageFitsADefaultStack() throws Exception {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> JsonDecoderConfig.defaults().withMaxDepth(JsonDecoderConfig.MAX_DEPTH + 1));
    assertTrue(e.getMessage().contains("1001") && e.getMessage().contains("1000"), e.getMessage());
    int depth = JsonDecoderConfig.MAX_DEPTH - 1; // the message's own object is a level
    String deep = "{\"id\":1,\"zz\":" + "[".repeat(depth - 1) + "1" + "]".repeat(depth - 1) + "}";
    String deepObjects = "{\"id\":3,\"yy\":" + "{\"a\":".repeat(depth - 1) + "1" + "}".repeat(depth - 1) + "}";
    String tooDeep = "{\"id\":2,\"zz\":" + "[".repeat(depth + 1) + "1" + "]".repeat(depth + 1) + "}";
    JsonDecoderConfig deepest = JsonDecoderConfig.defaults().withDescribeUnknownFields(true)
        .withMaxDepth(JsonDecoderConfig.MAX_DEPTH);
    List<Object> outcome = new ArrayList<>();
    Thread small = new Thread(null, () -> {
      try (NativeJsonDecoder decoder = NativeJsonDecoder.create(EVENTS, deepest);
          MessageBatch batch = batchOf(deep, tooDeep, deepObjects);
          DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.DEAD_LETTER, allocator)) {
        outcome.add(decoded.root().getRowCount());
        outcome.add(decoded.rejected().get(0).reason());
        outcome.add(decoder.takeUnknownFields().stream().map(UnknownField::path).sorted().toList());
      } catch (RuntimeException | Error failure) {
        outcome.add(failure);
      }
    }, "default-stack", 1024 * 1024);
    small.start();
    small.join();
    assertEquals(3, outcome.size(), outcome.toString());
    assertEquals(2, outcome.get(0));
    assertTrue(((String) outcome.get(1)).contains("nesting deeper than the limit of 1000"), outcome.get(1).toString());
    assertEquals(List.of("yy", "zz"), outcome.get(2));
  }

  @Test
  void anUnsupportedTargetTypeIsRefusedByPath() {
    Schema schema = new Schema(List.of(field("d", 1, true, new ArrowType.Duration(TimeUnit.SECOND))));
    InvalidArgumentException e =
        assertThrows(InvalidArgumentException.class, () -> NativeJsonDecoder.create(schema, JsonDecoderConfig.defaults()));
    assertTrue(e.getMessage().contains("field 'd'"), e.getMessage());
  }

  @Test
  void decodersOnSeveralThreadsAreIndependent() throws Exception {
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Long>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long base = t * 1_000_000L;
        results.add(pool.submit(() -> {
          long sum = 0;
          try (NativeJsonDecoder decoder = NativeJsonDecoder.create(EVENTS, JsonDecoderConfig.defaults());
              MessageBatch batch = new MessageBatch();
              BufferAllocator local = allocator.newChildAllocator("t" + base, 0, Long.MAX_VALUE)) {
            start.await();
            for (int round = 0; round < 50; round++) {
              batch.clear();
              for (int i = 0; i < 200; i++) {
                batch.add(("{\"id\":" + (base + i) + "}").getBytes(StandardCharsets.UTF_8));
              }
              try (DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.FAIL, local)) {
                BigIntVector ids = (BigIntVector) decoded.root().getVector("id");
                for (int i = 0; i < ids.getValueCount(); i++) {
                  sum += ids.get(i) - base;
                }
              }
            }
          }
          return sum;
        }));
      }
      start.countDown();
      for (Future<Long> r : results) {
        assertEquals(50L * (199 * 200 / 2), r.get());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void useAfterCloseThrowsAndCloseIsIdempotent() {
    NativeJsonDecoder decoder = NativeJsonDecoder.create(EVENTS, JsonDecoderConfig.defaults());
    decoder.close();
    decoder.close();
    try (MessageBatch batch = batchOf(GOOD_2)) {
      assertThrows(IllegalStateException.class, () -> decoder.decode(batch, BadRecordPolicy.SKIP, allocator));
    }
  }
}
