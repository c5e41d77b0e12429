package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
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
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * Structured values that failed the task or wrote the wrong table before the fixes (helper-77's
 * review, and helper-81's of the fix): a map keyed by Connect dates became a struct with a column per
 * key's {@code toString()};
 * a first record whose names collide, or a Struct without the upsert key, failed table creation
 * under {@code errors.tolerance=all}; a new struct whose own names collide failed schema evolution;
 * a tombstone whose key is a bare number failed the task. Each now lands or is a bad record, named,
 * and the rest of the records land.
 */
class StructValueEdgesTest extends InJvmTaskTest {
  private final List<String> reported = new ArrayList<>();

  /** A context whose dead-letter queue records each bad record's offset and reason. */
  private InJvmTasks.RecordingContext reporting() {
    return new InJvmTasks.RecordingContext((record, error) -> {
      reported.add(record.kafkaOffset() + ": " + error.getMessage());
      return CompletableFuture.completedFuture(null);
    });
  }

  @Test
  void mapsKeyedByConnectTypesBecomeStringKeyedMapsWithTheKeysText() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "typed_keys");
    Map<String, String> config = structConfig("typed-keys", id, 2);
    config.put("iceberg.tables.evolve-schema-enabled", "true");
    Schema byStruct = SchemaBuilder.map(SchemaBuilder.struct().field("k", Schema.INT32_SCHEMA).build(),
        Schema.INT32_SCHEMA).optional().build();
    Schema value = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA)
        .field("days", SchemaBuilder.map(Date.SCHEMA, Schema.INT32_SCHEMA).optional().build())
        .field("times", SchemaBuilder.map(Timestamp.SCHEMA, Schema.STRING_SCHEMA).optional().build())
        .field("prices", SchemaBuilder.map(Decimal.schema(2), Schema.BOOLEAN_SCHEMA).optional().build())
        .field("by_struct", byStruct)
        .build();
    List<SinkRecord> records = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Struct key = new Struct(byStruct.keySchema()).put("k", i);
      records.add(new SinkRecord(TP.topic(), TP.partition(), null, null, value, new Struct(value)
          .put("id", (long) i)
          // a transform may give java.sql.Date, whose toInstant() throws
          .put("days", Map.of(i == 0 ? new java.util.Date(19_723L * 86_400_000L) : new java.sql.Date(19_724L * 86_400_000L), i))
          .put("times", Map.of(i == 0 ? new java.util.Date(1_704_067_200_123L) : timestampWithNanos(1_704_067_200_124L, 124_000_001), "t" + i))
          .put("prices", Map.of(new java.math.BigDecimal("1.50").add(java.math.BigDecimal.valueOf(i)), i == 0))
          .put("by_struct", Map.of(key, i)), i));
    }
    InJvmTasks.run(config, 2, records);

    Table table = catalog.loadTable(id);
    List<String> columns = List.of("days", "times", "prices", "by_struct");
    for (String column : columns) {
      Types.NestedField field = table.schema().findField(column);
      assertTrue(field != null && field.type().isMapType()
          && field.type().asMapType().keyType().equals(Types.StringType.get()), column + ": " + field);
    }
    assertEquals(Map.of(
        0L, List.of(Map.of("2024-01-01", 0), Map.of("2024-01-01T00:00:00.123Z", "t0"), Map.of("1.50", true),
            Map.of("{\"k\":0}", 0)),
        1L, List.of(Map.of("2024-01-02", 1), Map.of("2024-01-01T00:00:00.124000001Z", "t1"), Map.of("2.50", false),
            Map.of("{\"k\":1}", 1))), rows(table, columns));
  }

  /**
   * A schemaless map (after a transform) keyed by dates and bytes: the keys' text does not depend
   * on the JVM's time zone, the arrays' identities or the Date's class (helper-81: {@code
   * Date.toString()} and {@code [B@1b2c3d}; a {@code java.sql.Date} failed its record), and equal
   * keys name one field.
   */
  @Test
  void schemalessMapKeysAreTheSameTextInEveryRecord() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "schemaless_keys");
    Map<String, String> config = schemalessConfig("schemaless-keys", id, 2);
    config.put("iceberg.tables.auto-create-enabled", "true");
    List<SinkRecord> records = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Map<Object, Object> m = new LinkedHashMap<>();
      m.put(i == 0 ? new java.util.Date(0) : new java.sql.Date(0), (long) i); // java.sql.Date's toInstant() throws
      m.put(new byte[] {1, 2}, "b" + i);
      Map<String, Object> value = new LinkedHashMap<>();
      value.put("id", (long) i);
      value.put("m", m);
      records.add(new SinkRecord(TP.topic(), TP.partition(), null, null, null, value, i));
    }
    runTolerating(config, records);

    assertEquals(List.of(), reported);
    Table table = catalog.loadTable(id);
    assertEquals(List.of("1970-01-01T00:00:00Z", "AQI="),
        table.schema().findField("m").type().asStructType().fields().stream().map(Types.NestedField::name).toList());
    Map<Long, List<Object>> rows = rows(table, List.of("m"));
    assertEquals(List.of(0L, 1L), List.copyOf(rows.keySet()));
    for (long i = 0; i < 2; i++) {
      Record m = (Record) rows.get(i).getFirst();
      assertEquals(List.of(i, "b" + i), List.of(m.get(0), m.get(1)), "row " + i);
    }
  }

  @Test
  void aFirstRecordWhoseNamesCollideIsABadRecordAndTheNextCreatesTheTable() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "dotted");
    Map<String, String> config = schemalessConfig("dotted", id, 2);
    config.put("iceberg.tables.auto-create-enabled", "true");
    List<SinkRecord> records = schemaless("{\"id\":0,\"a.b\":1,\"a\":{\"b\":2}}", "{\"id\":1,\"a\":{\"b\":3}}");
    runTolerating(config, records);

    assertEquals(1, reported.size(), reported.toString());
    assertTrue(reported.getFirst().startsWith("0: ") && reported.getFirst().contains("multiple fields for name a.b"),
        reported.toString());
    assertEquals(Map.of(1L, 1), InJvmTasks.ids(catalog.loadTable(id)));
  }

  @Test
  void aStructWithoutTheUpsertKeyIsABadRecordAndTheNextCreatesTheTable() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "keyed");
    Map<String, String> config = structConfig("keyed", id, 2);
    config.put("iceberg.tables.auto-create-enabled", "true");
    config.put("iceberg.tables.upsert-mode-enabled", "true");
    config.put("iceberg.tables.default-id-columns", "id");
    Schema other = SchemaBuilder.struct().field("name", Schema.STRING_SCHEMA).build();
    Schema keyed = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).field("name", Schema.STRING_SCHEMA).build();
    List<SinkRecord> records = List.of(
        new SinkRecord(TP.topic(), TP.partition(), null, null, other, new Struct(other).put("name", "x"), 0),
        new SinkRecord(TP.topic(), TP.partition(), null, null, keyed, new Struct(keyed).put("id", 7L).put("name", "y"), 1));
    runTolerating(config, records);

    assertEquals(1, reported.size(), reported.toString());
    assertTrue(reported.getFirst().startsWith("0: ") && reported.getFirst().contains("id column 'id'"),
        reported.toString());
    Table table = catalog.loadTable(id);
    assertEquals(Set.of("id"), table.schema().identifierFieldNames());
    assertEquals(Map.of(7L, 1), InJvmTasks.ids(table));
  }

  @Test
  void aNewStructWhoseOwnNamesCollideIsNotAddedFromItsConnectSchema() {
    org.apache.iceberg.Schema table = new org.apache.iceberg.Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()));
    assertEquals(List.of(), ConnectSchemaEvolution.plan(table, collidingValue(), null, false));
  }

  @Test
  void aNewStructWhoseOwnNamesCollideDoesNotFailTheTask() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "collide");
    Map<String, String> config = structConfig("collide", id, 2);
    config.put("iceberg.tables.evolve-schema-enabled", "true");
    Schema value = collidingValue();
    Schema s = value.field("s").schema();
    List<SinkRecord> records = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Struct inner = new Struct(s.field("b").schema()).put("c", 2);
      records.add(new SinkRecord(TP.topic(), TP.partition(), null, null, value,
          new Struct(value).put("id", (long) i).put("s", new Struct(s).put("b.c", 1).put("b", inner)), i));
    }
    runTolerating(config, records);

    assertEquals(List.of(), reported);
    assertEquals(Map.of(0L, 1, 1L, 1), InJvmTasks.ids(catalog.loadTable(id)));
    // left to the decoder's evolution, which adds what the values show and leaves out nested names with a dot
    Types.NestedField added = catalog.loadTable(id).schema().findField("s");
    assertEquals("struct<4: b: optional struct<5: c: optional long>>", added.type().toString());
  }

  @Test
  void aTombstoneWhoseKeyIsABareNumberIsABadRecordNamingTheKey() throws Exception {
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
    TableIdentifier id = TableIdentifier.of("db", "upserts");
    catalog.createTable(id, new org.apache.iceberg.Schema(List.of(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get())), Set.of(1)),
        PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    Map<String, String> config = schemalessConfig("upserts", id, 3);
    config.put("iceberg.tables.upsert-mode-enabled", "true");
    List<SinkRecord> records = List.of(
        new SinkRecord(TP.topic(), TP.partition(), null, null, null, new LinkedHashMap<>(Map.of("id", 1L, "name", "a")), 0),
        new SinkRecord(TP.topic(), TP.partition(), Schema.INT64_SCHEMA, 1L, null, null, 1),
        new SinkRecord(TP.topic(), TP.partition(), null, null, null, new LinkedHashMap<>(Map.of("id", 2L, "name", "b")), 2));
    runTolerating(config, records);

    assertEquals(1, reported.size(), reported.toString());
    assertTrue(reported.getFirst().startsWith("1: ")
        && reported.getFirst().contains("offset 1: the tombstone's key: a record key of type java.lang.Long"),
        reported.toString());
    assertEquals(Map.of(1L, 1, 2L, 1), InJvmTasks.ids(catalog.loadTable(id)));
  }

  /** The values of {@code columns} by id. */
  private static Map<Long, List<Object>> rows(Table table, List<String> columns) throws IOException {
    Map<Long, List<Object>> rows = new TreeMap<>();
    try (CloseableIterable<Record> read = IcebergGenerics.read(table).build()) {
      for (Record r : read) {
        rows.put((Long) r.getField("id"), columns.stream().map(r::getField).toList());
      }
    }
    return rows;
  }

  /** {@code s}: a struct with a field "b.c" beside a struct "b" with a field "c". */
  private static Schema collidingValue() {
    Schema inner = SchemaBuilder.struct().optional().field("c", Schema.OPTIONAL_INT32_SCHEMA).build();
    Schema s = SchemaBuilder.struct().optional().field("b.c", Schema.OPTIONAL_INT32_SCHEMA).field("b", inner).build();
    return SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).field("s", s).build();
  }

  private Map<String, String> structConfig(String connector, TableIdentifier id, int cycleRecords) {
    Map<String, String> config = InJvmTasks.config(connector, warehouse(), id, cycleRecords);
    config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    config.put("errors.tolerance", "all");
    return config;
  }

  /** A java.sql.Timestamp keeps nanoseconds, which its key text keeps too. */
  private static java.sql.Timestamp timestampWithNanos(long millis, int nanos) {
    java.sql.Timestamp timestamp = new java.sql.Timestamp(millis);
    timestamp.setNanos(nanos);
    return timestamp;
  }

  private Map<String, String> schemalessConfig(String connector, TableIdentifier id, int cycleRecords) {
    Map<String, String> config = structConfig(connector, id, cycleRecords);
    config.put("value.converter.schemas.enable", "false");
    return config;
  }

  /** Records as JsonConverter without schemas gives them, at offsets 0, 1, ... */
  private static List<SinkRecord> schemaless(String... json) {
    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of("schemas.enable", "false"), false);
    List<SinkRecord> records = new ArrayList<>();
    for (int i = 0; i < json.length; i++) {
      SchemaAndValue v = converter.toConnectData(TP.topic(), json[i].getBytes(StandardCharsets.UTF_8));
      records.add(new SinkRecord(TP.topic(), TP.partition(), null, null, v.schema(), v.value(), i));
    }
    return records;
  }

  /** One put of {@code records} and their commit, bad ones going to {@link #reported}. */
  private void runTolerating(Map<String, String> config, List<SinkRecord> records) throws InterruptedException {
    FloeIcebergSinkTask task = InJvmTasks.started(config, reporting());
    try {
      task.open(List.of(TP));
      task.put(records); // under errors.tolerance=all: a failure here is the defect
      InJvmTasks.awaitCommitted(task, records.size());
    } finally {
      task.stop();
    }
  }
}
