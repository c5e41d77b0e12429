package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodedBatch;
import dev.floe.arrow.InvalidArgumentException;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.NativePartitioner;
import dev.floe.arrow.PartitionField;
import dev.floe.arrow.PartitionedBatch;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * libfloe's partition transforms give, row for row, the partition tuple Iceberg Java's {@link
 * PartitionKey} computes for the same record -- every transform over every source type it accepts,
 * on random values with negatives, zero, extremes, unicode, decimals and pre-1970 times.
 */
class PartitionTransformsTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "i", Types.IntegerType.get()),
          Types.NestedField.optional(3, "l", Types.LongType.get()),
          Types.NestedField.optional(4, "dec9", Types.DecimalType.of(9, 2)),
          Types.NestedField.optional(5, "dec38", Types.DecimalType.of(38, 10)),
          Types.NestedField.optional(6, "day", Types.DateType.get()),
          Types.NestedField.optional(7, "t", Types.TimeType.get()),
          Types.NestedField.optional(8, "ts", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(9, "tstz", Types.TimestampType.withZone()),
          Types.NestedField.optional(10, "tsns", Types.TimestampNanoType.withoutZone()),
          Types.NestedField.optional(11, "tsnstz", Types.TimestampNanoType.withZone()),
          Types.NestedField.optional(12, "s", Types.StringType.get()),
          Types.NestedField.optional(13, "u", Types.UUIDType.get()),
          Types.NestedField.optional(14, "fx", Types.FixedType.ofLength(7)),
          Types.NestedField.optional(15, "b", Types.BinaryType.get()),
          Types.NestedField.optional(16, "flag", Types.BooleanType.get()),
          Types.NestedField.optional(17, "f", Types.FloatType.get()),
          Types.NestedField.optional(18, "d", Types.DoubleType.get()),
          Types.NestedField.optional(
              19, "st", Types.StructType.of(Types.NestedField.optional(20, "y", Types.StringType.get()))));

  private static final String[] TEMPORAL = {"identity", "bucket[9]", "year", "month", "day", "hour"};

  /** Column -> the transforms Iceberg allows on its type. */
  private static final List<Case> CASES =
      List.of(
          new Case("i", "identity", "bucket[16]", "truncate[10]", "void"),
          new Case("l", "identity", "bucket[7]", "truncate[1000]"),
          new Case("dec9", "identity", "bucket[11]", "truncate[50]"),
          new Case("dec38", "bucket[5]", "truncate[100]"),
          new Case("day", "identity", "bucket[4]", "year", "month", "day"),
          new Case("t", "identity", "bucket[3]"),
          new Case("ts", TEMPORAL),
          new Case("tstz", TEMPORAL),
          new Case("tsns", TEMPORAL),
          new Case("tsnstz", TEMPORAL),
          new Case("s", "identity", "bucket[16]", "truncate[2]"),
          new Case("u", "identity", "bucket[8]"),
          new Case("fx", "identity", "bucket[8]"),
          new Case("b", "identity", "bucket[8]", "truncate[3]"),
          new Case("flag", "identity"),
          new Case("f", "identity"),
          new Case("d", "identity"),
          new Case("st.y", "identity", "bucket[2]", "truncate[1]"));

  record Case(String column, String... transforms) {}

  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  @Test
  void everyTransformEqualsIcebergJavaRowForRow() {
    List<Record> records = new RandomRows(42).records(SCHEMA, 2000);
    for (int i = 0; i < records.size(); i++) {
      records.get(i).setField("id", (long) i); // unique ids: one group per row
    }
    assertEquals(2000 * CASES.stream().mapToInt(c -> c.transforms().length).sum(), checkRowForRow(records, CASES));
  }

  /**
   * Before 1970, at the last micro (nano) of the first second of an hour, day, month or year, and
   * around it: Iceberg Java's hour/day/month/year take such an instant one unit lower than the
   * spec's floor does, and floe's transforms give Java's values (Spark's and Flink's writers
   * partition so).
   */
  @Test
  void timestampsAtTheLastMicroOfAUnitsFirstSecondEqualIcebergJava() {
    List<java.time.LocalDateTime> starts = List.of(
        java.time.LocalDateTime.parse("1969-12-31T23:00:00"),
        java.time.LocalDateTime.parse("1969-12-31T00:00:00"),
        java.time.LocalDateTime.parse("1969-12-01T00:00:00"),
        java.time.LocalDateTime.parse("1969-01-01T00:00:00"),
        java.time.LocalDateTime.parse("1969-07-20T20:00:00"),
        java.time.LocalDateTime.parse("1900-03-01T00:00:00"),
        java.time.LocalDateTime.parse("1970-01-01T00:00:00"));
    long[] nanosAfter = {999_999_999, 999_999_000, 999_998_000, 1_999_999_000, 0, -1_000, -1};
    List<Record> records = new ArrayList<>();
    for (java.time.LocalDateTime start : starts) {
      for (long after : nanosAfter) {
        java.time.LocalDateTime nanos = start.plusNanos(after);
        java.time.LocalDateTime micros = start.plusNanos(Math.floorDiv(after, 1000) * 1000);
        Record r = GenericRecord.create(SCHEMA);
        r.setField("id", (long) records.size());
        r.setField("ts", micros);
        r.setField("tstz", micros.atOffset(java.time.ZoneOffset.UTC));
        r.setField("tsns", nanos);
        r.setField("tsnstz", nanos.atOffset(java.time.ZoneOffset.UTC));
        records.add(r);
      }
    }
    List<Case> cases = List.of("ts", "tstz", "tsns", "tsnstz").stream()
        .map(column -> new Case(column, "year", "month", "day", "hour")).toList();
    assertEquals(records.size() * 16, checkRowForRow(records, cases));
  }

  /** The records decoded natively, each case's transforms checked row for row; returns the rows checked. */
  private int checkRowForRow(List<Record> records, List<Case> cases) {
    int checked = 0;
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(ArrowSchemas.toArrow(SCHEMA), JsonDecoderConfig.defaults());
        MessageBatch messages = new MessageBatch()) {
      records.forEach(r -> messages.add(RandomRows.toJson(r).getBytes(StandardCharsets.UTF_8)));
      try (DecodedBatch decoded = decoder.decode(messages, BadRecordPolicy.FAIL, allocator)) {
        for (Case c : cases) {
          for (String transform : c.transforms()) {
            checked += checkRowForRow(decoded, records, specOf(c.column(), transform));
          }
        }
      }
    }
    return checked;
  }

  /**
   * Partitions by (identity(id), transform(column)): ids are unique and groups come in order of
   * first row, so group g is record g, and its partition tuple is compared with Iceberg's.
   */
  private int checkRowForRow(DecodedBatch decoded, List<Record> records, PartitionSpec spec) {
    PartitionKey expected = new PartitionKey(spec, SCHEMA);
    InternalRecordWrapper internal = new InternalRecordWrapper(SCHEMA.asStruct());
    try (NativePartitioner partitioner =
            NativePartitioner.create(decoded.root().getSchema(), PartitionValues.fields(spec));
        PartitionedBatch split = partitioner.split(decoded.root(), allocator)) {
      assertEquals(records.size(), split.groupCount(), spec.toString());
      for (int g = 0; g < records.size(); g++) {
        expected.partition(internal.wrap(records.get(g)));
        StructLike actual = PartitionValues.read(spec, split.partitions(), g);
        assertEquals(1, split.rows(g));
        for (int p = 0; p < spec.fields().size(); p++) {
          assertEquals(
              comparable(expected.get(p, Object.class)),
              comparable(actual.get(p, Object.class)),
              spec.fields().get(p) + " of record " + g + ": " + records.get(g));
        }
      }
      return records.size();
    }
  }

  private static PartitionSpec specOf(String column, String transform) {
    PartitionSpec.Builder b = PartitionSpec.builderFor(SCHEMA).identity("id");
    int bracket = transform.indexOf('[');
    int n = bracket < 0 ? 0 : Integer.parseInt(transform.substring(bracket + 1, transform.length() - 1));
    switch (bracket < 0 ? transform : transform.substring(0, bracket)) {
      case "identity" -> b.identity(column);
      case "bucket" -> b.bucket(column, n);
      case "truncate" -> b.truncate(column, n);
      case "year" -> b.year(column);
      case "month" -> b.month(column);
      case "day" -> b.day(column);
      case "hour" -> b.hour(column);
      case "void" -> b.alwaysNull(column);
      default -> throw new IllegalArgumentException(transform);
    }
    return b.build();
  }

  private static Object comparable(Object v) {
    return switch (v) {
      case null -> null;
      case CharSequence s -> s.toString();
      case ByteBuffer b -> {
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        yield HexFormat.of().formatHex(bytes);
      }
      case byte[] bytes -> HexFormat.of().formatHex(bytes);
      default -> v;
    };
  }

  @Test
  void rowsOfOnePartitionAreGroupedAndCounted() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket("l", 4).build();
    List<Record> records = new RandomRows(7).records(SCHEMA, 1000);
    org.apache.arrow.vector.types.pojo.Schema arrow = ArrowSchemas.toArrow(SCHEMA);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(arrow, JsonDecoderConfig.defaults());
        MessageBatch messages = new MessageBatch();
        NativePartitioner partitioner =
            NativePartitioner.create(arrow, PartitionValues.fields(spec))) {
      records.forEach(r -> messages.add(RandomRows.toJson(r).getBytes(StandardCharsets.UTF_8)));
      try (PartitionedBatch split =
          decoder.decodePartitioned(messages, partitioner, BadRecordPolicy.FAIL, allocator)) {
        // bucket[4] plus null: at most five groups, and every row is in exactly one.
        assertTrue(split.groupCount() >= 4 && split.groupCount() <= 5, "groups: " + split.groupCount());
        assertEquals(1000, split.totalRows());
        assertEquals(1000, split.decodeStats().rows());
        PartitionKey key = new PartitionKey(spec, SCHEMA);
        InternalRecordWrapper internal = new InternalRecordWrapper(SCHEMA.asStruct());
        java.util.Map<Object, Long> expected = new java.util.HashMap<>();
        for (Record r : records) {
          key.partition(internal.wrap(r));
          expected.merge(key.get(0, Object.class), 1L, Long::sum);
        }
        java.util.Map<Object, Long> actual = new java.util.HashMap<>();
        for (int g = 0; g < split.groupCount(); g++) {
          actual.put(PartitionValues.read(spec, split.partitions(), g).get(0, Object.class), split.rows(g));
        }
        assertEquals(expected, actual);
      }
    }
  }

  @Test
  void transformsThatDoNotFitTheTypeAreRefusedByName() {
    org.apache.arrow.vector.types.pojo.Schema arrow = ArrowSchemas.toArrow(SCHEMA);
    InvalidArgumentException e =
        assertThrows(
            InvalidArgumentException.class,
            () -> NativePartitioner.create(arrow, List.of(new PartitionField("p", 17, "bucket[4]"))));
    assertTrue(e.getMessage().contains("'f'") && e.getMessage().contains("Float32"), e.getMessage());
    InvalidArgumentException missing =
        assertThrows(
            InvalidArgumentException.class,
            () -> NativePartitioner.create(arrow, List.of(new PartitionField("p", 99, "identity"))));
    assertTrue(missing.getMessage().contains("field id 99"), missing.getMessage());
  }
}
