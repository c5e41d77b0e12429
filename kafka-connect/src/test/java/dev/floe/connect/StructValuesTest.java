package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.awaitCommitted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.connect.InJvmTasks.RecordingContext;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * Structured Connect values (a Struct by its schema; schemaless maps of Java values) land as the
 * values Iceberg's own connector writes for them: Connect's logical types into date, time,
 * timestamp and decimal columns, a FLOAT32 widened into a double column, bytes, nested structs,
 * and maps with non-string keys into string-keyed map columns.
 */
class StructValuesTest extends InJvmTaskTest {
  private static final Schema DECIMAL = Decimal.schema(2);
  private static final Schema INNER = SchemaBuilder.struct().name("inner").field("n", Schema.INT16_SCHEMA).build();
  private static final Schema VALUE = SchemaBuilder.struct().name("value")
      .field("id", Schema.INT64_SCHEMA)
      .field("day", Date.SCHEMA)
      .field("at", Time.SCHEMA)
      .field("ts", Timestamp.SCHEMA)
      .field("tstz", Timestamp.SCHEMA)
      .field("price", DECIMAL)
      .field("ratio", Schema.FLOAT32_SCHEMA)
      .field("blob", Schema.OPTIONAL_BYTES_SCHEMA)
      .field("inner", INNER)
      .field("tags", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build())
      .field("note", SchemaBuilder.string().optional().defaultValue("none").build())
      .field("weight", Schema.FLOAT64_SCHEMA)
      .build();

  /** 1 + 2^-24: halfway between the floats 1 and 1 + 2^-23; Java's cast rounds it to even, 1. */
  private static final double HALFWAY = 1.000000059604644775390625;

  private static final org.apache.iceberg.Schema TABLE = new org.apache.iceberg.Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "day", Types.DateType.get()),
      Types.NestedField.optional(3, "at", Types.TimeType.get()),
      Types.NestedField.optional(4, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(5, "tstz", Types.TimestampType.withZone()),
      Types.NestedField.optional(6, "price", Types.DecimalType.of(10, 2)),
      Types.NestedField.optional(7, "ratio", Types.DoubleType.get()),
      Types.NestedField.optional(8, "blob", Types.BinaryType.get()),
      Types.NestedField.optional(9, "inner", Types.StructType.of(
          Types.NestedField.optional(10, "n", Types.IntegerType.get()))),
      Types.NestedField.optional(11, "tags", Types.MapType.ofOptional(12, 13, Types.StringType.get(), Types.StringType.get())),
      Types.NestedField.optional(14, "note", Types.StringType.get()),
      Types.NestedField.optional(15, "uuid", Types.UUIDType.get()),
      Types.NestedField.optional(16, "weight", Types.FloatType.get()));

  @Test
  void aStructsLogicalTypesJsonTakesTheFormsTheDecoderReads() {
    String json = new String(new ConnectJson().write(struct(1), VALUE), StandardCharsets.UTF_8);
    assertEquals("{\"id\":1,\"day\":\"2024-01-01\",\"at\":\"01:02:03.004\",\"ts\":1704067200123,\"tstz\":1704067200123,"
        + "\"price\":19.99,\"ratio\":0.10000000149011612,\"blob\":\"AgM=\",\"inner\":{\"n\":7},"
        + "\"tags\":{\"1\":\"a\"},\"note\":\"none\",\"weight\":1.000000059604644775390625}", json);
  }

  @Test
  void onlyDoublesHalfwayBetweenFloatsAreWrittenInFull() {
    assertEquals(true, ConnectJson.halfwayBetweenFloats(HALFWAY));
    assertEquals(true, ConnectJson.halfwayBetweenFloats(-HALFWAY));
    assertEquals(true, ConnectJson.halfwayBetweenFloats(0x1p-150), "half the smallest float");
    assertEquals(true, ConnectJson.halfwayBetweenFloats(3 * 0x1p-150));
    assertEquals(false, ConnectJson.halfwayBetweenFloats(0x1p-149), "the smallest float itself");
    assertEquals(false, ConnectJson.halfwayBetweenFloats(Math.nextUp(HALFWAY)));
    assertEquals(false, ConnectJson.halfwayBetweenFloats(0.1));
    assertEquals(false, ConnectJson.halfwayBetweenFloats(1.0));
    assertEquals(false, ConnectJson.halfwayBetweenFloats(0.0));
    assertEquals(false, ConnectJson.halfwayBetweenFloats(Double.NaN));
    assertEquals(false, ConnectJson.halfwayBetweenFloats(Double.POSITIVE_INFINITY));
    // why: the shortest text of the tie reads as the float above it, the cast gives the even one
    assertEquals(1.0000001f, Float.parseFloat(Double.toString(HALFWAY)));
    for (double tie : new double[] {HALFWAY, 0x1p-150, 3 * 0x1p-150}) {
      assertEquals((float) tie, Float.parseFloat(new BigDecimal(tie).toString()), Double.toString(tie));
    }
  }

  /**
   * A value nested deeper than Jackson writes (1,000 levels; a 1,000-level message one transform
   * deeper) is a bad record, which errors.tolerance=all dead-letters, not an UncheckedIOException
   * that fails the task.
   */
  @Test
  void aValueNestedTooDeepIsABadRecord() {
    Map<String, Object> value = new LinkedHashMap<>();
    Map<String, Object> inner = value;
    for (int level = 0; level < 1_100; level++) {
      Map<String, Object> next = new LinkedHashMap<>();
      inner.put("a", next);
      inner = next;
    }
    DataException e = assertThrows(DataException.class, () -> new ConnectJson().write(value, null));
    assertTrue(e.getMessage().contains("nested too deep") && e.getMessage().contains("1000"), e.getMessage());
  }

  @Test
  void schemalessJavaValuesJsonCannotWriteAreWritten() {
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("price", new BigDecimal("1E-8"));
    value.put("ts", new java.util.Date(1704067200123L));
    value.put("uuid", UUID.fromString("00000000-0000-0000-0000-00000000002a"));
    value.put("day", LocalDate.of(2024, 1, 1));
    value.put("inner", new Struct(INNER).put("n", (short) 7));
    String json = new String(new ConnectJson().write(value, null), StandardCharsets.UTF_8);
    assertEquals("{\"price\":0.00000001,\"ts\":1704067200123,\"uuid\":\"00000000-0000-0000-0000-00000000002a\","
        + "\"day\":\"2024-01-01\",\"inner\":{\"n\":7}}", json);
  }

  @Test
  void structsLandAsIcebergsConnectorWritesThem() throws Exception {
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
    TableIdentifier id = TableIdentifier.of("db", "structs");
    catalog.createTable(id, TABLE, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    Map<String, String> config = InJvmTasks.config("structs", warehouse(), id, 3);
    config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    FloeIcebergSinkTask task = new FloeIcebergSinkTask();
    task.initialize(new RecordingContext());
    task.start(config);
    try {
      task.open(List.of(TP));
      List<SinkRecord> records = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        records.add(new SinkRecord(TP.topic(), TP.partition(), null, null, VALUE, struct(i), i));
      }
      Map<String, Object> schemaless = new LinkedHashMap<>();
      schemaless.put("id", 2L);
      schemaless.put("uuid", UUID.fromString("00000000-0000-0000-0000-00000000002a"));
      schemaless.put("ts", new java.util.Date(1704067200123L));
      records.add(new SinkRecord(TP.topic(), TP.partition(), null, null, null, schemaless, 2));
      task.put(records);
      awaitCommitted(task, 3);
    } finally {
      task.stop();
    }
    Map<Long, Record> rows = new java.util.TreeMap<>();
    try (CloseableIterable<Record> read = IcebergGenerics.read(catalog.loadTable(id)).build()) {
      read.forEach(r -> rows.put((Long) r.getField("id"), r));
    }
    assertEquals(3, rows.size());
    Record row = rows.get(1L);
    assertEquals(LocalDate.of(2024, 1, 1), row.getField("day"));
    assertEquals(LocalTime.of(1, 2, 3, 4_000_000), row.getField("at"));
    assertEquals(LocalDateTime.of(2024, 1, 1, 0, 0, 0, 123_000_000), row.getField("ts"));
    assertEquals(OffsetDateTime.of(2024, 1, 1, 0, 0, 0, 123_000_000, ZoneOffset.UTC), row.getField("tstz"));
    assertEquals(new BigDecimal("19.99"), row.getField("price"));
    assertEquals((double) 0.1f, row.getField("ratio"), "a FLOAT32 widened as Java widens it");
    assertEquals(ByteBuffer.wrap(new byte[] {2, 3}), row.getField("blob"));
    assertEquals(7, ((Record) row.getField("inner")).getField("n"));
    assertEquals(Map.of("1", "a"), row.getField("tags"));
    assertEquals("none", row.getField("note"), "a null field takes its default");
    assertEquals((float) HALFWAY, row.getField("weight"), "a FLOAT64 into a float column, as Java's cast rounds it");
    Record schemalessRow = rows.get(2L);
    assertEquals(UUID.fromString("00000000-0000-0000-0000-00000000002a"), schemalessRow.getField("uuid"));
    assertEquals(LocalDateTime.of(2024, 1, 1, 0, 0, 0, 123_000_000), schemalessRow.getField("ts"));
  }

  /** Row {@code id}: 2024-01-01, 01:02:03.004, 2024-01-01T00:00:00.123Z, 19.99, 0.1f, bytes {2, 3} (from a larger buffer). */
  private static Struct struct(long id) {
    ByteBuffer blob = ByteBuffer.wrap(new byte[] {1, 2, 3, 4}, 1, 2);
    return new Struct(VALUE)
        .put("id", id)
        .put("day", java.util.Date.from(LocalDate.of(2024, 1, 1).atStartOfDay().toInstant(ZoneOffset.UTC)))
        .put("at", new java.util.Date(3_723_004L))
        .put("ts", new java.util.Date(1704067200123L))
        .put("tstz", new java.util.Date(1704067200123L))
        .put("price", new BigDecimal("19.99"))
        .put("ratio", 0.1f)
        .put("blob", blob)
        .put("inner", new Struct(INNER).put("n", (short) 7))
        .put("tags", Map.of(1, "a"))
        .put("weight", HALFWAY);
  }
}
