package dev.floe.connect;

import static dev.floe.connect.ConnectFixture.FLOE;
import static dev.floe.connect.ConnectFixture.ICEBERG;
import static dev.floe.connect.ConnectFixture.awaitRows;
import static dev.floe.connect.ConnectFixture.config;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.LocalConnectWorker;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.kafka.RoundRobinProducer;
import dev.floe.kafka.TopicReader;
import dev.floe.kafka.sink.SnapshotOffsets;
import dev.floe.testing.EvolvingUpserts;
import dev.floe.testing.TableFingerprint;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * floe's connector on a real standalone Connect worker (its own JVM, the packaged plugin on
 * {@code plugin.path}) against a real KRaft broker and the embedded catalog; tables are read back
 * with Iceberg's generic reader.
 */
class StandaloneWorkerTest {
  private static final Duration TIMEOUT = Duration.ofMinutes(2);
  @TempDir static Path dir;
  static LocalKafkaBroker kafka;
  static LocalConnectWorker worker;
  static Catalog catalog;
  static Path warehouse;

  @BeforeAll
  static void start() throws Exception {
    kafka = LocalKafkaBroker.start(dir.resolve("broker"));
    warehouse = dir.resolve("warehouse");
    catalog = Catalogs.embedded(warehouse);
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
    worker = ConnectFixture.worker(dir.resolve("worker"), kafka.bootstrapServers()).start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (worker != null) {
      worker.close();
    }
    if (catalog instanceof AutoCloseable c) {
      c.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void nexmarkAndSyntheticLandExactlyAndEqualIcebergsConnector() throws Exception {
    int events = 20_000;
    kafka.createTopic("nexmark", 4);
    ConnectFixture.produce(kafka.bootstrapServers(), "nexmark", 4, ConnectFixture.nexmark(7, events));
    TableFingerprint expected = ConnectFixture.nexmarkFingerprint(7, events);

    // The fast path: values as bytes.
    TableIdentifier fast = TableIdentifier.of("db", "nexmark_fast");
    Table fastTable = ConnectFixture.createTable(catalog, fast, ConnectFixture.NEXMARK, "bid.auction");
    Map<String, String> bytes = config(FLOE, "nexmark", fast, warehouse);
    bytes.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    run("floe-bytes", bytes, fastTable, events);
    assertEquals(expected, TableFingerprint.of(fastTable));
    assertEquals(Map.of(0, 5000L, 1, 5000L, 2, 5000L, 3, 5000L), storedOffsets(fastTable, "connect-floe-bytes"));

    // One config, two connector classes: JsonConverter values (maps) through floe, and Iceberg's own.
    TableIdentifier viaFloe = TableIdentifier.of("db", "nexmark_floe");
    TableIdentifier viaIceberg = TableIdentifier.of("db", "nexmark_iceberg");
    Table floeTable = ConnectFixture.createTable(catalog, viaFloe, ConnectFixture.NEXMARK, "bid.auction");
    Table icebergTable = ConnectFixture.createTable(catalog, viaIceberg, ConnectFixture.NEXMARK, "bid.auction");
    Map<String, String> shared = config(ICEBERG, "nexmark", viaIceberg, warehouse);
    kafka.createTopic("control-nexmark", 1);
    run("iceberg", shared, icebergTable, events);
    Map<String, String> same = new LinkedHashMap<>(shared);
    same.put("connector.class", FLOE);
    same.put("iceberg.tables", viaFloe.toString());
    run("floe-maps", same, floeTable, events);
    assertEquals(expected, TableFingerprint.of(icebergTable));
    assertEquals(TableFingerprint.of(icebergTable), TableFingerprint.of(floeTable));

    // Synthetic events through StringConverter.
    kafka.createTopic("synthetic", 4);
    List<byte[]> synthetic = ConnectFixture.synthetic(3, events);
    ConnectFixture.produce(kafka.bootstrapServers(), "synthetic", 4, synthetic);
    TableIdentifier syntheticId = TableIdentifier.of("db", "synthetic");
    Table syntheticTable = ConnectFixture.createTable(catalog, syntheticId, ConnectFixture.SYNTHETIC, "id");
    Map<String, String> strings = config(FLOE, "synthetic", syntheticId, warehouse);
    strings.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
    run("floe-strings", strings, syntheticTable, events);
    assertEquals(ConnectFixture.syntheticFingerprint(synthetic), TableFingerprint.of(syntheticTable));
  }

  @Test
  void badRecordsGoToTheDeadLetterQueueWithConnectsHeadersOrStopTheTask() throws Exception {
    kafka.createTopic("mixed", 1);
    List<byte[]> messages = new ArrayList<>(ConnectFixture.nexmark(11, 1000));
    messages.set(100, "{not json".getBytes(StandardCharsets.UTF_8));
    messages.set(500, "{\"event_type\":\"0\"}".getBytes(StandardCharsets.UTF_8));
    ConnectFixture.produce(kafka.bootstrapServers(), "mixed", 1, messages);
    kafka.createTopic("mixed-dlq", 1);

    TableIdentifier id = TableIdentifier.of("db", "mixed");
    Table table = ConnectFixture.createTable(catalog, id, ConnectFixture.NEXMARK, "bid.auction");
    Map<String, String> tolerant = config(FLOE, "mixed", id, warehouse);
    tolerant.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    tolerant.put("errors.tolerance", "all");
    tolerant.put("errors.deadletterqueue.topic.name", "mixed-dlq");
    tolerant.put("errors.deadletterqueue.topic.replication.factor", "1");
    tolerant.put("errors.deadletterqueue.context.headers.enable", "true");
    run("floe-dlq", tolerant, table, 998);
    assertEquals(ConnectFixture.nexmarkFingerprint(11, 1000, java.util.Set.of(100, 500)), TableFingerprint.of(table));

    List<ConsumerRecord<byte[], byte[]>> dead = readAll("mixed-dlq", 2);
    assertEquals(2, dead.size(), "dead letters");
    assertEquals(List.of(100L, 500L), dead.stream().map(r -> Long.parseLong(header(r, "__connect.errors.offset"))).toList());
    for (ConsumerRecord<byte[], byte[]> r : dead) {
      int offset = Integer.parseInt(header(r, "__connect.errors.offset"));
      assertEquals(new String(messages.get(offset), StandardCharsets.UTF_8), new String(r.value(), StandardCharsets.UTF_8));
      assertEquals("mixed", header(r, "__connect.errors.topic"));
      assertEquals("0", header(r, "__connect.errors.partition"));
      assertTrue(header(r, "__connect.errors.exception.message").contains("topic mixed, partition 0, offset " + offset),
          header(r, "__connect.errors.exception.message"));
    }

    // errors.tolerance=none (the default): the task stops, naming where and why; nothing is committed past it.
    TableIdentifier strictId = TableIdentifier.of("db", "mixed_strict");
    Table strict = ConnectFixture.createTable(catalog, strictId, ConnectFixture.NEXMARK, "bid.auction");
    Map<String, String> none = config(FLOE, "mixed", strictId, warehouse);
    none.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    none.put("floe.commit.records", "50");
    worker.createConnector("floe-strict", none);
    String failure = awaitFailure("floe-strict");
    worker.deleteConnector("floe-strict");
    assertTrue(failure.contains("topic mixed, partition 0, offset 100"), failure);
    assertTrue(failure.contains("errors.tolerance=none"), failure);
    long landed = ConnectFixture.rows(strict);
    assertTrue(landed <= 100, "records past the bad one landed: " + landed); // its whole cycle is dropped
  }

  @Test
  void validateRefusesUnsupportedKeysByName() throws Exception {
    Map<String, String> config = config(FLOE, "anything", TableIdentifier.of("db", "t"), warehouse);
    config.put("name", "floe-validate");
    config.put("iceberg.tables.evolve-schema-enabled", "true");
    config.put("iceberg.tables.upsert-mode-enabled", "true");
    config.put("iceberg.tables.no-such-key", "1");
    config.put("iceberg.tables.default-commit-branch", "audit");
    String answer = worker.validate(FLOE, config);
    assertTrue(answer.contains("\"error_count\":2"), answer);
    assertTrue(answer.contains("'iceberg.tables.no-such-key' is not a key floe's connector supports"), answer);
    assertTrue(answer.contains("'iceberg.tables.default-commit-branch' = audit is not supported"), answer);
    config.remove("iceberg.tables.no-such-key");
    config.remove("iceberg.tables.default-commit-branch");
    // Iceberg's control-topic keys, documented for its connector: accepted, with nothing to do
    config.put("iceberg.coordinator.transactional.prefix", "");
    config.put("iceberg.coordinator-executor-keep-alive-timeout-ms", "120000");
    assertTrue(worker.validate(FLOE, config).contains("\"error_count\":0"), "evolution with upsert is fine");
  }

  @Test
  void aTableIcebergsConnectorWroteContinuesUnderFloeWithoutGapOrDuplicate() throws Exception {
    int half = 5000;
    kafka.createTopic("handover", 2);
    kafka.createTopic("control-handover", 1);
    List<byte[]> all = ConnectFixture.nexmark(21, 2 * half);
    ConnectFixture.produce(kafka.bootstrapServers(), "handover", 2, all.subList(0, half));
    TableIdentifier id = TableIdentifier.of("db", "handover");
    Table table = ConnectFixture.createTable(catalog, id, ConnectFixture.NEXMARK, "bid.auction");
    Map<String, String> config = config(ICEBERG, "handover", id, warehouse);
    run("handover", config, table, half);

    ConnectFixture.produce(kafka.bootstrapServers(), "handover", 2, all.subList(half, 2 * half));
    config.put("connector.class", FLOE); // the only change; same name, so the same consumer group
    run("handover", config, table, 2 * half);
    assertEquals(ConnectFixture.nexmarkFingerprint(21, 2 * half), TableFingerprint.of(table));
  }

  @Test
  void upsertsAndDeletesByKeyAcrossCommits() throws Exception {
    kafka.createTopic("keyed", 1);
    List<byte[]> keys = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    Map<Long, Long> expected = new HashMap<>();
    for (int i = 0; i < 3000; i++) {
      long id = i % 400;
      keys.add(("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8));
      if (i % 7 == 3) {
        values.add(null); // a tombstone deletes the key's row
        expected.remove(id);
      } else {
        values.add(("{\"id\":" + id + ",\"seq\":" + i + ",\"kind\":\"k" + (i % 3) + "\"}").getBytes(StandardCharsets.UTF_8));
        expected.put(id, (long) i);
      }
    }
    RoundRobinProducer.sendTo(kafka.bootstrapServers(), "keyed", Collections.nCopies(keys.size(), 0), keys, values);
    TableIdentifier id = TableIdentifier.of("db", "keyed");
    Map<String, String> config = config(FLOE, "keyed", id, warehouse);
    config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    config.put("iceberg.tables.upsert-mode-enabled", "true");
    config.put("iceberg.tables.auto-create-enabled", "true");
    config.put("iceberg.tables.default-id-columns", "id");
    config.put("iceberg.tables.default-partition-by", "bucket(id, 4)");
    config.put("floe.tables.schema", "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        + "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        + "{\"id\":2,\"name\":\"seq\",\"required\":true,\"type\":\"long\"},"
        + "{\"id\":3,\"name\":\"kind\",\"required\":false,\"type\":\"string\"}]}");
    config.put("floe.commit.records", "700");
    worker.createConnector("floe-upsert", config);
    try {
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (!committedThrough(id, "connect-floe-upsert", 3000)) {
        assertNull(worker.failure("floe-upsert"));
        assertTrue(System.nanoTime() < deadline, "the upserts were not all committed; see " + worker.log());
        Thread.sleep(200);
      }
    } finally {
      worker.deleteConnector("floe-upsert");
    }
    Table table = catalog.loadTable(id);
    // Commits come after a put() of Connect's 500-record polls has passed 700 records.
    assertTrue(countSnapshots(table) >= 3, "commits every 700 records: " + countSnapshots(table) + " snapshots");
    assertEquals(expected, ConnectFixture.seqById(table));
  }

  @Test
  void idlePartitionsAndTasksDoNotHoldBackCommits() throws Exception {
    kafka.createTopic("half-idle", 2);
    List<byte[]> messages = ConnectFixture.nexmark(31, 500);
    List<Integer> partitions = new ArrayList<>();
    messages.forEach(m -> partitions.add(0)); // partition 1 stays empty
    ConnectFixture.produceTo(kafka.bootstrapServers(), "half-idle", partitions, messages);
    TableIdentifier id = TableIdentifier.of("db", "half_idle");
    Table table = ConnectFixture.createTable(catalog, id, ConnectFixture.NEXMARK, "bid.auction");
    Map<String, String> config = config(FLOE, "half-idle", id, warehouse);
    config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    config.put("tasks.max", "2");
    // Nothing comes after the 500 records: Connect calls the task again only at its next offset
    // flush (10 s on this worker), so a commit within the 1 s interval is the task's own timer.
    worker.createConnector("floe-idle", config);
    try {
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (worker.recordsPut("floe-idle") < 500 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      long put = System.nanoTime();
      awaitRows(worker, "floe-idle", table, 500, TIMEOUT);
      long waited = (System.nanoTime() - put) / 1_000_000;
      assertTrue(waited < 6_000, "committed " + waited + " ms after the last put, not on the 1 s interval");
    } finally {
      worker.deleteConnector("floe-idle");
    }
    assertEquals(Map.of(0, 500L), storedOffsets(table, "connect-floe-idle"));
  }

  /**
   * A topic deleted and created again under its name while the table holds offsets past the new
   * log's end. The task seeks to the table's offset, Connect's consumer finds it out of range and
   * resets to the new log's start, and the new topic's records land from there (they were skipped
   * as already held before); the offset the table stores moves back to the new topic's.
   */
  @Test
  void aTopicCreatedAgainUnderItsNameLandsFromItsStart() throws Exception {
    kafka.createTopic("recreated", 1);
    List<byte[]> old = ConnectFixture.synthetic(41, 300);
    ConnectFixture.produce(kafka.bootstrapServers(), "recreated", 1, old);
    TableIdentifier id = TableIdentifier.of("db", "recreated");
    Table table = ConnectFixture.createTable(catalog, id, ConnectFixture.SYNTHETIC, "id");
    Map<String, String> config = config(FLOE, "recreated", id, warehouse);
    config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    run("floe-recreated", config, table, 300);

    kafka.deleteTopic("recreated");
    kafka.createTopic("recreated", 1);
    List<byte[]> renewed = ConnectFixture.synthetic(42, 100);
    ConnectFixture.produce(kafka.bootstrapServers(), "recreated", 1, renewed);
    run("floe-recreated", config, table, 400); // the same connector name: the same group and its offsets

    List<byte[]> both = new ArrayList<>(old);
    both.addAll(renewed);
    assertEquals(ConnectFixture.syntheticFingerprint(both), TableFingerprint.of(table));
    table.refresh();
    Map<Integer, Long> latest = new HashMap<>();
    String json = table.currentSnapshot().summary().get(SnapshotOffsets.key("connect-floe-recreated"));
    SnapshotOffsets.nextOffsets(SnapshotOffsets.parse(json)).forEach((tp, next) -> latest.put(tp.partition(), next));
    assertEquals(Map.of(0, 100L), latest, "the stored offset is the new topic's");
  }

  @Test
  void aColumnAddedAndARenameWhileTheConnectorRunsApplyFromTheNextCycle() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "altered");
    Table table = idAndOneColumn(id, "name", org.apache.iceberg.types.Types.StringType.get());
    Map<String, String> config = rawJsonConfig(id);
    worker.createConnector("floe-altered", config);
    try {
      // A field the table does not have yet: not written, but counted.
      ConnectFixture.produce(kafka.bootstrapServers(), "altered", 1,
          json(0, 100, i -> "\"name\":\"n" + i + "\",\"city\":\"early\""));
      awaitRows(worker, "floe-altered", table, 100, TIMEOUT);
      table.refresh();
      table.updateSchema()
          .addColumn("city", org.apache.iceberg.types.Types.StringType.get())
          .renameColumn("name", "full_name")
          .commit();
      ConnectFixture.produce(kafka.bootstrapServers(), "altered", 1,
          json(100, 200, i -> "\"full_name\":\"n" + i + "\",\"city\":\"c" + (i % 3) + "\""));
      awaitRows(worker, "floe-altered", table, 200, TIMEOUT);
      assertEquals(100.0, worker.sum("dev.floe:type=FloeIcebergSinkTask,connector=floe-altered,*",
          "UnknownFieldValues"), "the 'city' values that came before the column");
    } finally {
      worker.deleteConnector("floe-altered");
    }
    Map<Long, List<Object>> rows = dev.floe.testing.TableRows.byId(table, "id", "full_name", "city");
    Map<Long, List<Object>> expected = new java.util.TreeMap<>();
    for (long i = 0; i < 200; i++) {
      expected.put(i, java.util.Arrays.asList("n" + i, i < 100 ? null : "c" + (i % 3)));
    }
    assertEquals(expected, rows, "rows before the change keep their values under the new name; rows after have all three");
  }

  @Test
  void withEvolveSchemaEnabledRecordsThatGrowFieldsNestAndWidenEvolveTheTable() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "growing");
    Table table = idAndOneColumn(id, "n", org.apache.iceberg.types.Types.IntegerType.get());
    Map<String, String> config = rawJsonConfig(id);
    config.put("iceberg.tables.evolve-schema-enabled", "true");
    config.put("floe.batch.records", "10"); // the changes come mid-cycle
    // A top-level field from 30 on, a nested one from 60, n outgrowing int from 90.
    ConnectFixture.produce(kafka.bootstrapServers(), "growing", 1, json(0, 100, i ->
        "\"n\":" + (i < 90 ? i : 3_000_000_000L + i)
            + (i >= 30 ? ",\"city\":\"c" + (i % 3) + "\"" : "")
            + (i >= 60 ? ",\"geo\":{\"lat\":" + i + ".5}" : "")));
    run("floe-growing", config, table, 100);
    table.refresh();
    assertEquals(org.apache.iceberg.types.Types.LongType.get(), table.schema().findType("n"));
    assertEquals(org.apache.iceberg.types.Types.StringType.get(), table.schema().findType("city"));
    assertEquals(org.apache.iceberg.types.Types.DoubleType.get(), table.schema().findType("geo.lat"));
    Map<Long, List<Object>> rows = dev.floe.testing.TableRows.byId(table, "id", "n", "city", "geo");
    Map<Long, List<Object>> expected = new java.util.TreeMap<>();
    Map<Long, List<Object>> actual = new java.util.TreeMap<>();
    for (long i = 0; i < 100; i++) {
      expected.put(i, java.util.Arrays.asList(i < 90 ? i : 3_000_000_000L + i, i < 30 ? null : "c" + (i % 3),
          i < 60 ? null : i + 0.5));
      List<Object> row = new ArrayList<>(rows.get(i));
      if (row.get(2) instanceof org.apache.iceberg.data.Record geo) {
        row.set(2, geo.getField("lat"));
      }
      actual.put(i, row);
    }
    assertEquals(expected, actual, "every value landed, in the columns its records brought");
  }

  /**
   * Upsert mode with schema evolution: keys change and are deleted by tombstones before and after
   * the table gains a column and its identifier column outgrows int, mid-cycle (ten records a
   * batch); the table ends with exactly each key's latest row.
   */
  @Test
  void withEvolveSchemaInUpsertModeEachKeyKeepsItsLatestRow() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "evolving_upserts");
    kafka.createTopic(id.name(), 1);
    Table table = catalog.createTable(id, EvolvingUpserts.SCHEMA, EvolvingUpserts.SPEC,
        Map.of(org.apache.iceberg.TableProperties.FORMAT_VERSION, "2"));
    EvolvingUpserts upserts = new EvolvingUpserts();
    RoundRobinProducer.sendTo(kafka.bootstrapServers(), id.name(), Collections.nCopies(upserts.keys.size(), 0),
        upserts.keys, upserts.values);
    Map<String, String> config = rawJsonConfig(id);
    config.put("iceberg.tables.upsert-mode-enabled", "true");
    config.put("iceberg.tables.evolve-schema-enabled", "true");
    config.put("floe.batch.records", "10");
    worker.createConnector("floe-evolving-upserts", config);
    try {
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (!committedThrough(id, "connect-floe-evolving-upserts", upserts.keys.size())) {
        assertNull(worker.failure("floe-evolving-upserts"));
        assertTrue(System.nanoTime() < deadline, "the upserts were not all committed; see " + worker.log());
        Thread.sleep(200);
      }
    } finally {
      worker.deleteConnector("floe-evolving-upserts");
    }
    table.refresh();
    assertEquals(org.apache.iceberg.types.Types.LongType.get(), table.schema().findType("id"));
    assertEquals(upserts.latest, EvolvingUpserts.rows(table));
  }

  /**
   * Struct values (JsonConverter with schemas) whose Connect schema grows: a second version adds
   * fields of Connect's logical types (Timestamp, Date, Decimal), bytes, a float, a map and a list
   * of structs, makes a required field optional (and sends nulls) and makes an int field INT64.
   * With evolution on, floe's connector and Iceberg's, each into a table of its own, end with the
   * same columns of the same types and the same rows: the types come from the Connect schema,
   * which the JSON floe decodes could not tell (a Timestamp is a number there, a map an object).
   */
  @Test
  void evolutionFromConnectSchemasGivesIcebergsConnectorsTable() throws Exception {
    String topic = "schemas-grow";
    kafka.createTopic(topic, 1);
    kafka.createTopic("control-" + topic, 1); // Iceberg's connector's control topic
    List<byte[]> messages = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      messages.add(schemaEnvelope(i).getBytes(StandardCharsets.UTF_8));
    }
    ConnectFixture.produce(kafka.bootstrapServers(), topic, 1, messages);
    org.apache.iceberg.Schema start = new org.apache.iceberg.Schema(
        org.apache.iceberg.types.Types.NestedField.required(1, "id", org.apache.iceberg.types.Types.LongType.get()),
        org.apache.iceberg.types.Types.NestedField.required(2, "name", org.apache.iceberg.types.Types.StringType.get()),
        org.apache.iceberg.types.Types.NestedField.optional(3, "n", org.apache.iceberg.types.Types.IntegerType.get()));
    Map<String, Table> tables = new LinkedHashMap<>();
    for (String connector : List.of(FLOE, ICEBERG)) {
      String name = connector.equals(FLOE) ? "grown_by_floe" : "grown_by_iceberg";
      TableIdentifier id = TableIdentifier.of("db", name);
      Table table = catalog.createTable(id, start, org.apache.iceberg.PartitionSpec.unpartitioned(),
          Map.of(org.apache.iceberg.TableProperties.FORMAT_VERSION, "2"));
      Map<String, String> config = config(connector, topic, id, warehouse);
      config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
      config.put("value.converter.schemas.enable", "true");
      config.put("iceberg.tables.evolve-schema-enabled", "true");
      run(name, config, table, messages.size());
      table.refresh();
      tables.put(connector, table);
    }
    Table floe = tables.get(FLOE);
    Table iceberg = tables.get(ICEBERG);
    // Iceberg's connector adds a record's new fields in no set order; floe in the schema's.
    assertEquals(columnTypes(iceberg.schema()), columnTypes(floe.schema()));
    assertEquals("timestamptz", floe.schema().findType("ts").toString());
    String[] columns = columnTypes(floe.schema()).keySet().toArray(String[]::new);
    assertEquals(plainRows(iceberg, columns), plainRows(floe, columns));
  }

  /** Each top-level column's type (and optionality), without field ids, by name. */
  private static Map<String, String> columnTypes(org.apache.iceberg.Schema schema) {
    Map<String, String> types = new java.util.TreeMap<>();
    for (org.apache.iceberg.types.Types.NestedField column : schema.columns()) {
      String json = org.apache.iceberg.SchemaParser.toJson(new org.apache.iceberg.Schema(column));
      types.put(column.name(), json.replaceAll("\"(id|element-id|key-id|value-id|schema-id)\":\\d+,?", ""));
    }
    return types;
  }

  /** Every row's values of {@code columns} by id, nested records as lists (their field ids left out). */
  private static Map<Long, Object> plainRows(Table table, String... columns) {
    Map<Long, Object> rows = new java.util.TreeMap<>();
    dev.floe.testing.TableRows.byId(table, "id", columns).forEach((id, values) -> rows.put(id, plain(values)));
    return rows;
  }

  private static Object plain(Object value) {
    return switch (value) {
      case org.apache.iceberg.data.Record r -> {
        List<Object> fields = new ArrayList<>();
        for (int i = 0; i < r.size(); i++) {
          fields.add(plain(r.get(i)));
        }
        yield fields;
      }
      case List<?> list -> list.stream().map(StandaloneWorkerTest::plain).toList();
      case Map<?, ?> map -> {
        Map<Object, Object> out = new java.util.HashMap<>();
        map.forEach((k, v) -> out.put(plain(k), plain(v)));
        yield out;
      }
      case null -> null;
      default -> value;
    };
  }

  /**
   * Record i as JsonConverter's envelope: schema version 1 (id, a required name, an INT32 n) for
   * i < 60, then version 2 (name optional and null every tenth, n INT64, and new fields).
   */
  private static String schemaEnvelope(int i) {
    boolean v2 = i >= 60;
    StringBuilder schema = new StringBuilder("{\"type\":\"struct\",\"optional\":false,\"fields\":["
        + "{\"field\":\"id\",\"type\":\"int64\",\"optional\":false},"
        + "{\"field\":\"name\",\"type\":\"string\",\"optional\":" + v2 + "},"
        + "{\"field\":\"n\",\"type\":\"" + (v2 ? "int64" : "int32") + "\",\"optional\":true}");
    StringBuilder payload = new StringBuilder("{\"id\":" + i + ",\"name\":" + (v2 && i % 10 == 0 ? "null" : "\"n" + i + "\"")
        + ",\"n\":" + (v2 ? 3_000_000_000L + i : i));
    if (v2) {
      schema.append(",{\"field\":\"ts\",\"type\":\"int64\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Timestamp\",\"version\":1}"
          + ",{\"field\":\"day\",\"type\":\"int32\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Date\",\"version\":1}"
          + ",{\"field\":\"amount\",\"type\":\"bytes\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Decimal\",\"version\":1,\"parameters\":{\"scale\":\"2\"}}"
          + ",{\"field\":\"blob\",\"type\":\"bytes\",\"optional\":true}"
          + ",{\"field\":\"ratio\",\"type\":\"float\",\"optional\":true}"
          + ",{\"field\":\"tags\",\"type\":\"map\",\"optional\":true,\"keys\":{\"type\":\"string\",\"optional\":false},\"values\":{\"type\":\"int32\",\"optional\":true}}"
          + ",{\"field\":\"items\",\"type\":\"array\",\"optional\":true,\"items\":{\"type\":\"struct\",\"optional\":false,\"fields\":["
          + "{\"field\":\"sku\",\"type\":\"string\",\"optional\":false},{\"field\":\"qty\",\"type\":\"int32\",\"optional\":false}]}}");
      byte[] unscaled = java.math.BigInteger.valueOf(100_000L * i + 7).toByteArray();
      payload.append(",\"ts\":").append(1_700_000_000_000L + i * 1000L)
          .append(",\"day\":").append(19_000 + i)
          .append(",\"amount\":\"").append(java.util.Base64.getEncoder().encodeToString(unscaled)).append('"')
          .append(",\"blob\":\"").append(java.util.Base64.getEncoder().encodeToString(new byte[] {(byte) i, 1, 2})).append('"')
          .append(",\"ratio\":").append(i + 0.25)
          .append(",\"tags\":{\"k").append(i % 3).append("\":").append(i).append(",\"z\":null}")
          .append(",\"items\":[{\"sku\":\"s").append(i).append("\",\"qty\":").append(i % 7).append("}]");
    }
    return "{\"schema\":" + schema.append("]}") + ",\"payload\":" + payload.append('}') + "}";
  }

  /**
   * A topic named after the table (one partition) and an unpartitioned v2 table of a required
   * long {@code id} and one optional column.
   */
  private static Table idAndOneColumn(TableIdentifier id, String column, org.apache.iceberg.types.Type type) {
    kafka.createTopic(id.name(), 1);
    org.apache.iceberg.Schema schema = new org.apache.iceberg.Schema(
        org.apache.iceberg.types.Types.NestedField.required(1, "id", org.apache.iceberg.types.Types.LongType.get()),
        org.apache.iceberg.types.Types.NestedField.optional(2, column, type));
    return catalog.createTable(id, schema, org.apache.iceberg.PartitionSpec.unpartitioned(),
        Map.of(org.apache.iceberg.TableProperties.FORMAT_VERSION, "2"));
  }

  /** floe's connector reading the table's topic as raw JSON bytes. */
  private static Map<String, String> rawJsonConfig(TableIdentifier id) {
    Map<String, String> config = config(FLOE, id.name(), id, warehouse);
    config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    return config;
  }

  /** {@code {"id":i,<rest of i>}} for i in [from, to). */
  private static List<byte[]> json(int from, int to, java.util.function.IntFunction<String> rest) {
    List<byte[]> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(("{\"id\":" + i + "," + rest.apply(i) + "}").getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  private static int countSnapshots(Table table) {
    int n = 0;
    for (Snapshot ignored : table.snapshots()) {
      n++;
    }
    return n;
  }

  private static boolean committedThrough(TableIdentifier id, String group, long next) {
    if (!catalog.tableExists(id)) {
      return false;
    }
    Long stored = storedOffsets(catalog.loadTable(id), group).get(0);
    return stored != null && stored == next;
  }

  /** Runs a connector until the table holds {@code rows}, then removes it. */
  private static void run(String name, Map<String, String> config, Table table, long rows) throws Exception {
    worker.createConnector(name, config);
    try {
      awaitRows(worker, name, table, rows, TIMEOUT);
      Thread.sleep(1500); // a commit past the expected rows would show now
      assertEquals(rows, ConnectFixture.rows(table), "rows after the last commit");
    } finally {
      worker.deleteConnector(name);
    }
  }

  private static String awaitFailure(String name) throws Exception {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      String failure = worker.failure(name);
      if (failure != null) {
        return failure;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("connector " + name + " did not fail; see " + worker.log());
  }

  /** Partition -> next offset the table's snapshots store for {@code group}, latest per partition. */
  private static Map<Integer, Long> storedOffsets(Table table, String group) {
    table.refresh();
    Map<Integer, Long> out = new HashMap<>();
    for (Snapshot s : table.snapshots()) {
      String json = s.summary().get(SnapshotOffsets.key(group));
      if (json != null) {
        SnapshotOffsets.nextOffsets(SnapshotOffsets.parse(json)).forEach((tp, next) -> out.put(tp.partition(), next));
      }
    }
    return out;
  }

  private static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int expected) {
    return TopicReader.readAll(kafka.bootstrapServers(), topic, expected);
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
    Header h = r.headers().lastHeader(key);
    assertNotNull(h, "header " + key);
    return new String(h.value(), StandardCharsets.UTF_8);
  }
}
