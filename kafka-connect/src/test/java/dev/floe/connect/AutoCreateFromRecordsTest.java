package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * {@code iceberg.tables.auto-create-enabled} without an Iceberg schema in the config: as with
 * Iceberg's connector, a missing table is created from its first record's value -- a Struct's
 * Connect schema (JsonConverter with schemas), a schemaless map's Java types (JsonConverter
 * without). Before, floe refused such a config (dynamic routing) or failed the task at start
 * (static tables): it took a table's schema only from {@code floe.tables.schema}.
 */
class AutoCreateFromRecordsTest extends InJvmTaskTest {
  private static final String STRUCT_SCHEMA = "{\"type\":\"struct\",\"name\":\"bid\",\"fields\":["
      + "{\"field\":\"id\",\"type\":\"int64\"},"
      + "{\"field\":\"name\",\"type\":\"string\",\"optional\":true},"
      + "{\"field\":\"price\",\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\","
      + "\"parameters\":{\"scale\":\"2\"},\"optional\":true},"
      + "{\"field\":\"at\",\"type\":\"int64\",\"name\":\"org.apache.kafka.connect.data.Timestamp\",\"optional\":true},"
      + "{\"field\":\"tags\",\"type\":\"array\",\"items\":{\"type\":\"string\"},\"optional\":true},"
      + "{\"field\":\"size\",\"type\":\"int16\",\"optional\":true}]}";

  @Test
  void aStaticTableIsCreatedFromItsFirstStructsConnectSchema() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "from_struct");
    Map<String, String> config = config(id.toString(), 20);
    config.put("iceberg.tables.default-partition-by", "bucket(id, 2)");
    JsonConverter converter = converter(true);
    List<SinkRecord> records = new ArrayList<>();
    for (long offset = 0; offset < 20; offset++) {
      // 1.25 is "AH0=" in base64: 125 unscaled, scale 2
      String payload = "{\"id\":" + offset + ",\"name\":\"n" + offset + "\",\"price\":\"AH0=\",\"at\":" + (1_700_000_000_000L
          + offset) + ",\"tags\":[\"a\",\"b\"],\"size\":" + offset + "}";
      records.add(record(converter, offset, "{\"schema\":" + STRUCT_SCHEMA + ",\"payload\":" + payload + "}"));
    }

    InJvmTasks.run(config, 20, records);

    Table table = catalog.loadTable(id);
    Types.StructType expected = Types.StructType.of(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "name", Types.StringType.get()),
        Types.NestedField.optional(3, "price", Types.DecimalType.of(38, 2)),
        Types.NestedField.optional(4, "at", Types.TimestampType.withZone()),
        Types.NestedField.optional(5, "tags", Types.ListType.ofRequired(7, Types.StringType.get())),
        Types.NestedField.optional(6, "size", Types.IntegerType.get()));
    assertEquals(expected, table.schema().asStruct());
    assertEquals(PartitionSpec.builderFor(table.schema()).bucket("id", 2).build().fields(), table.spec().fields());
    List<Record> rows = rows(table);
    assertEquals(20, rows.size());
    for (Record row : rows) {
      long offset = (Long) row.getField("id");
      assertEquals("n" + offset, row.getField("name"));
      assertEquals(new BigDecimal("1.25"), row.getField("price"));
      assertEquals(Instant.ofEpochMilli(1_700_000_000_000L + offset).atOffset(ZoneOffset.UTC), row.getField("at"));
      assertEquals(List.of("a", "b"), row.getField("tags"));
      assertEquals((int) offset, row.getField("size"));
    }
  }

  @Test
  void dynamicTablesAreCreatedFromSchemalessMaps() throws Exception {
    Map<String, String> config = config(null, 10);
    config.remove("iceberg.tables");
    config.put("iceberg.tables.dynamic-enabled", "true");
    config.put("iceberg.tables.route-field", "to");
    JsonConverter converter = converter(false);
    List<SinkRecord> records = new ArrayList<>();
    for (long offset = 0; offset < 10; offset++) {
      String to = offset % 2 == 0 ? "db.even" : "db.odd";
      records.add(record(converter, offset, "{\"to\":\"" + to + "\",\"id\":" + offset + ",\"ratio\":" + offset
          + ".5,\"ok\":true,\"inner\":{\"n\":\"x" + offset + "\"},\"ids\":[" + offset + "],\"nothing\":null}"));
    }

    InJvmTasks.run(config, 10, records);

    for (String name : List.of("even", "odd")) {
      Table table = catalog.loadTable(TableIdentifier.of("db", name));
      Types.StructType columns = table.schema().asStruct();
      assertEquals(Set.of("to", "id", "ratio", "ok", "inner", "ids"),
          columns.fields().stream().map(Types.NestedField::name).collect(Collectors.toSet()), "a null gives no column");
      assertEquals(Types.StringType.get(), columns.field("to").type());
      assertEquals(Types.LongType.get(), columns.field("id").type());
      assertEquals(Types.DoubleType.get(), columns.field("ratio").type());
      assertEquals(Types.BooleanType.get(), columns.field("ok").type());
      assertEquals(Types.StringType.get(), columns.field("inner").type().asStructType().field("n").type());
      assertEquals(Types.LongType.get(), columns.field("ids").type().asListType().elementType());
      assertTrue(columns.fields().stream().allMatch(Types.NestedField::isOptional));
      List<Record> rows = rows(table);
      assertEquals(5, rows.size());
      for (Record row : rows) {
        long offset = (Long) row.getField("id");
        assertEquals(offset % 2 == 0 ? "even" : "odd", name);
        assertEquals(offset + 0.5, row.getField("ratio"));
        assertEquals(true, row.getField("ok"));
        assertEquals("x" + offset, ((Record) row.getField("inner")).getField("n"));
        assertEquals(List.of(offset), row.getField("ids"));
      }
    }
  }

  @Test
  void aFirstRecordWithoutASchemaIsABadRecordNamingIt() {
    TableIdentifier id = TableIdentifier.of("db", "never");
    Map<String, String> config = config(id.toString(), 10);
    JsonConverter converter = converter(false);
    FloeIcebergSinkTask task = InJvmTasks.started(config, new InJvmTasks.RecordingContext());
    try {
      task.open(List.of(TP));
      ConnectException e = assertThrows(ConnectException.class,
          () -> task.put(List.of(record(converter, 0, "[1,2]"))));
      assertTrue(e.getMessage().contains("offset 0"), e.getMessage());
      assertTrue(e.getMessage().contains("gives no schema to create it from"), e.getMessage());
    } finally {
      task.stop();
    }
    assertTrue(!catalog.tableExists(id));
  }

  @Test
  void aTombstoneBeforeTheTableExistsHasNothingToDelete() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "upserted");
    Map<String, String> config = config(id.toString(), 3);
    config.put("iceberg.tables.upsert-mode-enabled", "true");
    config.put("iceberg.tables.default-id-columns", "id");
    JsonConverter converter = converter(true);
    SchemaAndValue key = converter(false).toConnectData(TP.topic(), "{\"id\":1}".getBytes(StandardCharsets.UTF_8));
    SinkRecord tombstone = new SinkRecord(TP.topic(), TP.partition(), null, key.value(), null, null, 0);
    List<SinkRecord> records = new ArrayList<>(List.of(tombstone));
    for (long offset = 1; offset < 3; offset++) {
      String payload = "{\"id\":" + offset + ",\"name\":\"n" + offset + "\",\"price\":null,\"at\":null,\"tags\":null,"
          + "\"size\":null}";
      records.add(record(converter, offset, "{\"schema\":" + STRUCT_SCHEMA + ",\"payload\":" + payload + "}"));
    }

    InJvmTasks.run(config, 3, records);

    Table table = catalog.loadTable(id);
    assertEquals(Set.of("id"), table.schema().identifierFieldNames());
    assertEquals(Map.of(1L, 1, 2L, 1), InJvmTasks.ids(table));
  }

  @Test
  void rawJsonValuesStillNeedTheSchemaAtStart() {
    TableIdentifier id = TableIdentifier.of("db", "raw");
    Map<String, String> config = config(id.toString(), 10);
    config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    ConnectException e = assertThrows(ConnectException.class,
        () -> InJvmTasks.started(config, new InJvmTasks.RecordingContext()));
    assertTrue(e.getMessage().contains("raw JSON values carry none"), e.getMessage());
  }

  @Test
  void aPartitioningTheInferredTypesDoNotAllowLeavesTheTableUnpartitioned() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "by_day");
    Map<String, String> config = config(id.toString(), 2);
    config.put("iceberg.tables.default-partition-by", "day(ts)"); // schemaless JSON gives ts as a string

    InJvmTasks.run(config, 2, maps("{\"id\":0,\"ts\":\"2026-01-01T00:00:00Z\"}", "{\"id\":1,\"ts\":\"x\"}"));

    Table table = catalog.loadTable(id);
    assertTrue(table.spec().isUnpartitioned(), "as Iceberg's connector creates it: " + table.spec());
    assertEquals(Map.of(0L, 1, 1L, 1), InJvmTasks.ids(table));
  }

  @Test
  void aFirstRecordWithoutAPartitionColumnsValueIsABadRecordAndTheNextCreatesTheTable() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "by_region");
    Map<String, String> config = config(id.toString(), 1);
    config.put("iceberg.tables.default-partition-by", "region");
    config.put("errors.tolerance", "all");
    List<String> reported = new ArrayList<>();
    InJvmTasks.RecordingContext context = new InJvmTasks.RecordingContext((record, error) -> {
      reported.add(record.kafkaOffset() + ": " + error.getMessage());
      return java.util.concurrent.CompletableFuture.completedFuture(null);
    });
    FloeIcebergSinkTask task = InJvmTasks.started(config, context);
    try {
      task.open(List.of(TP));
      task.put(maps("{\"id\":0,\"region\":null}", "{\"id\":1,\"region\":\"eu\"}"));
      InJvmTasks.awaitCommitted(task, 2);
    } finally {
      task.stop();
    }
    assertEquals(1, reported.size(), reported.toString());
    assertTrue(reported.getFirst().startsWith("0: ") && reported.getFirst().contains("no value for [region]"),
        reported.toString());
    Table table = catalog.loadTable(id);
    assertEquals(List.of("region"), table.spec().fields().stream().map(f -> f.name()).toList());
    assertEquals(Map.of(1L, 1), InJvmTasks.ids(table));
  }

  /**
   * First records that cannot create the table, as JsonConverter without schemas gives them: a
   * bare JSON string (before, taken for raw JSON, and the task failed at every restart) and, in
   * upsert mode, a key whose type Iceberg refuses for an identifier field (a double); found in
   * review (helper-55). Each is a bad record, and the next record creates the table.
   */
  @Test
  void aBareJsonStringOrAKeyIcebergRefusesIsABadRecord() throws Exception {
    for (boolean upsert : new boolean[] {false, true}) {
      TableIdentifier id = TableIdentifier.of("db", upsert ? "double_key" : "bare_string");
      Map<String, String> config = config(id.toString(), 1);
      config.put("errors.tolerance", "all");
      if (upsert) {
        config.put("iceberg.tables.upsert-mode-enabled", "true");
        config.put("iceberg.tables.default-id-columns", "id");
      }
      List<String> reported = new ArrayList<>();
      FloeIcebergSinkTask task = InJvmTasks.started(config, new InJvmTasks.RecordingContext((record, error) -> {
        reported.add(record.kafkaOffset() + ": " + error.getMessage());
        return java.util.concurrent.CompletableFuture.completedFuture(null);
      }));
      try {
        task.open(List.of(TP));
        task.put(maps(upsert ? "{\"id\":1.5}" : "\"oops\"", "{\"id\":1}"));
        InJvmTasks.awaitCommitted(task, 2);
      } finally {
        task.stop();
      }
      assertEquals(1, reported.size(), reported.toString());
      assertTrue(reported.getFirst().startsWith("0: "), reported.toString());
      assertEquals(Map.of(1L, 1), InJvmTasks.ids(catalog.loadTable(id)));
    }
  }

  @Test
  void rawJsonWithTheWorkersConverterFailsTheTaskAtTheTablesFirstRecord() {
    TableIdentifier id = TableIdentifier.of("db", "raw_worker");
    Map<String, String> config = config(id.toString(), 10);
    config.remove("value.converter"); // the worker's converter: the task cannot tell it at start
    config.put("errors.tolerance", "all");
    FloeIcebergSinkTask task = InJvmTasks.started(config, new InJvmTasks.RecordingContext(
        (record, error) -> java.util.concurrent.CompletableFuture.completedFuture(null)));
    try {
      task.open(List.of(TP));
      ConnectException e = assertThrows(ConnectException.class,
          () -> task.put(List.of(InJvmTasks.record(0, "{\"id\":1}".getBytes(StandardCharsets.UTF_8)))));
      assertTrue(e.getMessage().contains("raw JSON values carry none"), e.getMessage());
    } finally {
      task.stop();
    }
  }

  /**
   * A task started before another task created a static table from its first record opens it when
   * a partition is assigned to it: the partition resumes from the lowest offset of every static
   * table. Found in review (helper-52): the task sought to the other table's higher offset, and
   * the created table lacked the records between.
   */
  @Test
  void aTaskStartedBeforeATableWasCreatedCountsItsOffsetsWhenItResumes() throws Exception {
    TableIdentifier busy = InJvmTasks.createTable(catalog, "busy");
    TableIdentifier later = TableIdentifier.of("db", "later"); // created from its first record
    Map<String, String> config = InJvmTasks.routedConfig("auto", warehouse(), 10, busy, later);
    config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    config.put("iceberg.tables.auto-create-enabled", "true");

    InJvmTasks.RecordingContext context = new InJvmTasks.RecordingContext();
    FloeIcebergSinkTask starter = InJvmTasks.started(config, context); // before db.later exists
    try {
      InJvmTasks.run(config, 10, routedMaps(0, 10)); // another task: db.later created, both tables at 10
      // That task's next cycle landed in db.busy (at 20) and not in db.later: it died between them.
      new dev.floe.kafka.sink.TableCommitter("connect-auto").commit(catalog.loadTable(busy),
          org.apache.iceberg.io.WriteResult.builder().build(),
          Map.of(TP, new dev.floe.kafka.sink.SnapshotOffsets.Position(20, null)),
          Map.of(TP, new dev.floe.kafka.sink.SnapshotOffsets.Position(10, null)));

      starter.open(List.of(TP));
      assertEquals(List.of(Map.of(TP, 10L)), context.rewinds, "from db.later's offset, not db.busy's");
      starter.put(routedMaps(10, 30));
      InJvmTasks.awaitCommitted(starter, 30);
    } finally {
      starter.stop();
    }
    Map<Long, Integer> odd = new java.util.TreeMap<>();
    for (long offset = 1; offset < 30; offset += 2) {
      odd.put(offset, 1);
    }
    assertEquals(odd, InJvmTasks.ids(catalog.loadTable(later)), "each of db.later's records once");
  }

  /**
   * Differences helper-53 found against Iceberg's connector, run side by side: force-optional made
   * only top-level columns optional (a later null in a nested field failed the task), a map with
   * int keys got no column, and a partitioning naming a field the Struct does not have failed the
   * task where Iceberg's connector creates the table unpartitioned.
   */
  @Test
  void forceOptionalIntKeysAndAMissingPartitionColumnAsInIcebergsConnector() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "nested");
    Map<String, String> config = config(id.toString(), 2);
    config.put("iceberg.tables.schema-force-optional", "true");
    config.put("iceberg.tables.default-partition-by", "region");
    JsonConverter converter = converter(true);
    String schema = "{\"type\":\"struct\",\"fields\":[{\"field\":\"id\",\"type\":\"int64\"},"
        + "{\"field\":\"inner\",\"type\":\"struct\",\"fields\":[{\"field\":\"a\",\"type\":\"int32\"}]},"
        + "{\"field\":\"nums\",\"type\":\"array\",\"items\":{\"type\":\"int32\"}},"
        + "{\"field\":\"by_code\",\"type\":\"map\",\"keys\":{\"type\":\"int32\"},\"values\":{\"type\":\"string\"}}]}";
    // The second record nulls what the first had: JsonConverter checks only the schema's own optionality,
    // so both records are sent with the schema as Iceberg's connector would be given them.
    List<SinkRecord> records = List.of(
        record(converter, 0, "{\"schema\":" + schema + ",\"payload\":{\"id\":0,\"inner\":{\"a\":1},\"nums\":[1,2],"
            + "\"by_code\":[[7,\"seven\"]]}}"), // JsonConverter's form of a map with int keys
        record(converter, 1, "{\"schema\":" + schema.replace("\"type\":\"int32\"}]}", "\"type\":\"int32\","
            + "\"optional\":true}]}") + ",\"payload\":{\"id\":1,\"inner\":{\"a\":null},\"nums\":[3],"
            + "\"by_code\":[]}}"));

    InJvmTasks.run(config, 2, records);

    Table table = catalog.loadTable(id);
    Types.StructType columns = table.schema().asStruct();
    assertTrue(columns.field("inner").type().asStructType().field("a").isOptional(), columns.toString());
    assertTrue(columns.field("nums").type().asListType().isElementOptional(), columns.toString());
    assertEquals(Types.StringType.get(), columns.field("by_code").type().asMapType().keyType(), columns.toString());
    assertTrue(table.spec().isUnpartitioned(), "no 'region' in the Struct: " + table.spec());
    Map<Long, Record> byId = new java.util.TreeMap<>();
    rows(table).forEach(row -> byId.put((Long) row.getField("id"), row));
    assertEquals(Set.of(0L, 1L), byId.keySet());
    assertEquals(1, ((Record) byId.get(0L).getField("inner")).getField("a"));
    assertEquals(null, ((Record) byId.get(1L).getField("inner")).getField("a"));
    assertEquals(Map.of("7", "seven"), byId.get(0L).getField("by_code"));
  }

  /** Schemaless maps {"id":o,"name":"n<o>","to":busy|later}, even offsets to db.busy, odd to db.later. */
  private static List<SinkRecord> routedMaps(long from, long to) {
    JsonConverter converter = converter(false);
    List<SinkRecord> out = new ArrayList<>();
    for (long offset = from; offset < to; offset++) {
      out.add(record(converter, offset, "{\"id\":" + offset + ",\"name\":\"n" + offset + "\",\"to\":\""
          + (offset % 2 == 0 ? "busy" : "later") + "\"}"));
    }
    return out;
  }

  /** Schemaless maps at offsets 0, 1, ... */
  private static List<SinkRecord> maps(String... json) {
    JsonConverter converter = converter(false);
    List<SinkRecord> out = new ArrayList<>();
    for (int offset = 0; offset < json.length; offset++) {
      out.add(record(converter, offset, json[offset]));
    }
    return out;
  }

  /** Auto-create on, no schema given, JsonConverter values, a commit every {@code cycleRecords} records. */
  private Map<String, String> config(String table, int cycleRecords) {
    Map<String, String> config = InJvmTasks.config("auto", warehouse(), TableIdentifier.of("db", "unused"), cycleRecords);
    if (table != null) {
      config.put("iceberg.tables", table);
    }
    config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    config.put("iceberg.tables.auto-create-enabled", "true");
    return config;
  }

  private static JsonConverter converter(boolean schemas) {
    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of("schemas.enable", Boolean.toString(schemas)), false);
    return converter;
  }

  /** What a Connect worker hands the task for {@code json} at {@code offset}, through {@code converter}. */
  private static SinkRecord record(JsonConverter converter, long offset, String json) {
    SchemaAndValue value = converter.toConnectData(TP.topic(), json.getBytes(StandardCharsets.UTF_8));
    return new SinkRecord(TP.topic(), TP.partition(), null, null, value.schema(), value.value(), offset);
  }

  private static List<Record> rows(Table table) throws java.io.IOException {
    List<Record> out = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(r -> out.add(r.copy()));
    }
    return out;
  }
}
