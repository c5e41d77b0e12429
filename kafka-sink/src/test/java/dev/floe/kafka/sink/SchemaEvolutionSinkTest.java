package dev.floe.kafka.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.testing.EvolvingUpserts;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * {@code evolve.schema} against a real broker and the embedded catalog: a producer that adds a
 * top-level field, then a nested one, then widens an int, within one commit cycle; the table gains
 * the columns and every value lands in that cycle's commit; a value of the wrong type is
 * dead-lettered.
 */
class SchemaEvolutionSinkTest extends BrokerAndCatalog {
  private static final Schema START = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "n", Types.IntegerType.get()));

  SchemaEvolutionSinkTest() {
    super("evolve");
  }

  /** Message i of the producer's history: fields come as the producer's code changes. */
  private static String message(int i) {
    StringBuilder json = new StringBuilder("{\"id\":" + i + ",\"name\":\"n" + i + "\"");
    json.append(",\"n\":").append(i < 90 ? i : 3_000_000_000L + i); // from 90 on, n outgrows int
    if (i >= 30) {
      json.append(",\"city\":\"c").append(i % 3).append('"');
    }
    if (i >= 60) {
      json.append(",\"geo\":{\"lat\":").append(i).append(".5,\"tags\":[\"t").append(i).append("\"]}");
    }
    return json.append('}').toString();
  }

  /** What {@link #message} i becomes in the evolved table: name, n, city, geo as [lat, tags]. */
  private static Map<Long, List<Object>> expectedRows(int count) {
    Map<Long, List<Object>> expected = new TreeMap<>();
    for (long i = 0; i < count; i++) {
      expected.put(i, Arrays.asList("n" + i, i < 90 ? i : 3_000_000_000L + i, i < 30 ? null : "c" + (i % 3),
          i < 60 ? null : List.of(i + 0.5, List.of("t" + i))));
    }
    return expected;
  }

  /** The table's rows as {@link #expectedRows} has them, read back by Iceberg's generic reader. */
  private static Map<Long, List<Object>> readRows(Table table) {
    Map<Long, List<Object>> actual = new TreeMap<>();
    dev.floe.testing.TableRows.byId(table, "id", "name", "n", "city", "geo").forEach((key, values) -> {
      List<Object> flat = new ArrayList<>(values);
      if (flat.get(3) instanceof Record geo) {
        flat.set(3, List.of(geo.getField("lat"), geo.getField("tags")));
      }
      actual.put(key, flat);
    });
    return actual;
  }

  /**
   * A sink that evolves {@code id} from all of {@code topic} in one commit cycle, ten records a
   * batch (so the changes come mid-cycle), and stops at the end.
   */
  private SinkConfig.Builder oneEvolvingCycle(String topic, TableIdentifier id, boolean decodeAhead) {
    return SinkConfig.builder(catalog, kafka.bootstrapServers(), topic)
        .route(topic, id)
        .batches(10, 1 << 20, 64 << 20)
        .commitEvery(Duration.ofMinutes(5), 1_000_000, Long.MAX_VALUE)
        .evolveSchema(true)
        .decodeAhead(decodeAhead)
        .stopAtEnd(true);
  }

  @ParameterizedTest(name = "decodeAhead={0}")
  @ValueSource(booleans = {true, false})
  void fieldsAProducerAddsNestsAndWidensLandInTheCycleThatBroughtThem(boolean decodeAhead) throws Exception {
    String topic = "growing-" + decodeAhead;
    kafka.createTopic(topic, 1);
    kafka.createTopic(topic + "-dlq", 1);
    TableIdentifier id = TableIdentifier.of("evolve", "growing_" + decodeAhead);
    catalog.createTable(id, START, PartitionSpec.builderFor(START).bucket("id", 2).build(), SinkFixture.V2);
    List<byte[]> messages = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      messages.add(message(i).getBytes(StandardCharsets.UTF_8));
    }
    // A value that no evolution makes fit: city is a string column by now.
    messages.add("{\"id\":100,\"city\":7}".getBytes(StandardCharsets.UTF_8));
    SinkFixture.produce(kafka.bootstrapServers(), topic, 1, messages);

    SinkConfig config = oneEvolvingCycle(topic, id, decodeAhead)
        .badRecords(BadRecordPolicy.DEAD_LETTER, topic + "-dlq")
        .build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
      assertEquals(100, sink.metrics().getRowsWritten());
      assertEquals(1, sink.metrics().getDeadLettered());
      assertEquals(0, sink.metrics().getUnknownFieldValues(), "every field found a column");
      assertEquals(3, sink.metrics().getSchemaEvolutions(), "city, then geo, then n's widening");
      assertTrue(sink.metrics().getSchemaEvolutionMillis() > 0);
    }

    Table table = catalog.loadTable(id);
    Schema schema = table.schema();
    assertEquals(Types.StringType.get(), schema.findType("city"));
    assertEquals(Types.DoubleType.get(), schema.findType("geo.lat"));
    assertEquals(Types.StringType.get(), schema.findType("geo.tags.element"));
    assertEquals(Types.LongType.get(), schema.findType("n"));
    List<Snapshot> appends = new ArrayList<>();
    table.snapshots().forEach(appends::add);
    assertEquals(1, appends.size(), "one cycle, one commit, whatever the schema did meanwhile");

    assertEquals(expectedRows(100), readRows(table));

    List<ConsumerRecord<byte[], byte[]>> dead = SinkFixture.readAll(kafka.bootstrapServers(), topic + "-dlq", 1);
    assertEquals("{\"id\":100,\"city\":7}", new String(dead.getFirst().value(), StandardCharsets.UTF_8));
    String reason = new String(dead.getFirst().headers().lastHeader(DeadLetters.ERROR).value(), StandardCharsets.UTF_8);
    assertTrue(reason.contains("city"), reason);
  }

  /**
   * One message whose every one of ten int columns needs widening: a message stops decoding at
   * its first value too wide, so each round of evolution finds one column; the message still
   * lands (with eight rounds at most, it was dead-lettered).
   */
  @Test
  void aMessageWideningEveryColumnLands() throws Exception {
    List<Types.NestedField> columns = new ArrayList<>(List.of(Types.NestedField.required(1, "id", Types.LongType.get())));
    StringBuilder json = new StringBuilder("{\"id\":1");
    for (int c = 0; c < 10; c++) {
      columns.add(Types.NestedField.optional(2 + c, "a" + c, Types.IntegerType.get()));
      json.append(",\"a").append(c).append("\":").append(3_000_000_000L + c);
    }
    String topic = "wide-everywhere";
    kafka.createTopic(topic, 1);
    TableIdentifier id = TableIdentifier.of("evolve", "wide_everywhere");
    catalog.createTable(id, new Schema(columns), PartitionSpec.unpartitioned(), SinkFixture.V2);
    SinkFixture.produce(kafka.bootstrapServers(), topic, 1, List.of(json.append('}').toString().getBytes(StandardCharsets.UTF_8)));
    SinkConfig config = SinkConfig.builder(catalog, kafka.bootstrapServers(), topic)
        .route(topic, id)
        .evolveSchema(true)
        .stopAtEnd(true)
        .build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
      assertEquals(1, sink.metrics().getRowsWritten());
    }
    Table table = catalog.loadTable(id);
    List<Object> values = dev.floe.testing.TableRows.byId(table, "id", "a0", "a9").get(1L);
    assertEquals(List.of(3_000_000_000L, 3_000_000_009L), values);
    for (int c = 0; c < 10; c++) {
      assertEquals(Types.LongType.get(), table.schema().findType("a" + c));
    }
  }

  /**
   * An int column the table is partitioned by (identity and truncate) outgrows int in the middle of
   * a cycle: the files written before the widening hold int partition values, those after long
   * ones, and the cycle still commits once with both (Iceberg refused the int values before).
   */
  @Test
  void widenedPartitionSourceColumnsCommitTheirCycle() throws Exception {
    Schema start = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "n", Types.IntegerType.get()),
        Types.NestedField.optional(3, "m", Types.IntegerType.get()));
    String topic = "widened-partitions";
    kafka.createTopic(topic, 1);
    TableIdentifier id = TableIdentifier.of("evolve", "widened_partitions");
    catalog.createTable(id, start, PartitionSpec.builderFor(start).identity("n").truncate("m", 10).build(), SinkFixture.V2);
    SinkFixture.produce(kafka.bootstrapServers(), topic, 1, List.of(
        "{\"id\":1,\"n\":5,\"m\":15}".getBytes(StandardCharsets.UTF_8),
        "{\"id\":2,\"n\":3000000000,\"m\":3000000015}".getBytes(StandardCharsets.UTF_8)));
    SinkConfig config = SinkConfig.builder(catalog, kafka.bootstrapServers(), topic)
        .route(topic, id)
        .batches(1, 1 << 20, 64 << 20) // one record a batch: the widening comes mid-cycle
        .commitEvery(Duration.ofMinutes(5), 1_000_000, Long.MAX_VALUE)
        .evolveSchema(true)
        .stopAtEnd(true)
        .build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
      assertEquals(2, sink.metrics().getRowsWritten());
    }
    Table table = catalog.loadTable(id);
    assertEquals(Map.of(1L, List.of(5L, 15L), 2L, List.of(3_000_000_000L, 3_000_000_015L)),
        dev.floe.testing.TableRows.byId(table, "id", "n", "m"));
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    assertEquals(1, snapshots.size(), "one cycle, one commit");
  }

  @Test
  void withoutEvolutionTheSameFieldsAreCountedAndTheWideValuesAreBadRecords() {
    String topic = "fixed";
    kafka.createTopic(topic, 1);
    TableIdentifier id = TableIdentifier.of("evolve", "fixed");
    catalog.createTable(id, START, PartitionSpec.unpartitioned(), SinkFixture.V2);
    List<byte[]> messages = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      messages.add(message(i).getBytes(StandardCharsets.UTF_8));
    }
    SinkFixture.produce(kafka.bootstrapServers(), topic, 1, messages);
    SinkConfig config = SinkConfig.builder(catalog, kafka.bootstrapServers(), topic)
        .route(topic, id)
        .badRecords(BadRecordPolicy.SKIP, null)
        .stopAtEnd(true)
        .build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
      assertEquals(90, sink.metrics().getRowsWritten());
      assertEquals(10, sink.metrics().getBadRecords(), "n out of int range");
      assertEquals(0, sink.metrics().getSchemaEvolutions());
      assertEquals(60 + 30, sink.metrics().getUnknownFieldValues(), "city 60 times, geo 30 times in the decoded ones");
    }
    assertNull(catalog.loadTable(id).schema().findField("city"));
  }

  @Test
  void twoSinksEvolvingOneTableAtOnceEndWithBothFieldsAndEveryRow() throws Exception {
    TableIdentifier id = TableIdentifier.of("evolve", "shared");
    catalog.createTable(id, START, PartitionSpec.unpartitioned(), SinkFixture.V2);
    List<KafkaIcebergSink> sinks = new ArrayList<>();
    for (String side : List.of("left", "right")) {
      kafka.createTopic(side, 1);
      List<byte[]> messages = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        long key = side.equals("left") ? i : 1000 + i;
        messages.add(("{\"id\":" + key + ",\"" + side + "\":{\"v\":" + i + "}}").getBytes(StandardCharsets.UTF_8));
      }
      SinkFixture.produce(kafka.bootstrapServers(), side, 1, messages);
      sinks.add(new KafkaIcebergSink(SinkConfig.builder(catalog, kafka.bootstrapServers(), side)
          .route(side, id).batches(20, 1 << 20, 64 << 20).evolveSchema(true).stopAtEnd(true).build()));
    }
    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      List<java.util.concurrent.Future<?>> runs = new ArrayList<>();
      for (KafkaIcebergSink sink : sinks) {
        runs.add(threads.submit(sink::run));
      }
      for (var run : runs) {
        run.get(120, java.util.concurrent.TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
      sinks.forEach(KafkaIcebergSink::close);
    }
    Table table = catalog.loadTable(id);
    assertEquals(Types.LongType.get(), table.schema().findType("left.v"));
    assertEquals(Types.LongType.get(), table.schema().findType("right.v"));
    Map<Long, List<Object>> rows = dev.floe.testing.TableRows.byId(table, "id", "left", "right");
    assertEquals(400, rows.size());
    for (long i = 0; i < 200; i++) {
      assertEquals(i, ((Record) rows.get(i).get(0)).getField("v"));
      assertNull(rows.get(i).get(1));
      assertEquals(i, ((Record) rows.get(1000 + i).get(1)).getField("v"));
      assertNull(rows.get(1000 + i).get(0));
    }
  }

  /**
   * Killed (SIGKILL) after its schema commit and before any data commit, the sink leaves a table
   * with the new column and no rows; restarted, it writes every record once, into that column.
   */
  @Test
  void killedRightAfterTheSchemaCommitTheSinkContinuesExactlyAfterARestart() throws Exception {
    String topic = "killed";
    kafka.createTopic(topic, 1);
    TableIdentifier id = TableIdentifier.of("evolve", "killed");
    catalog.createTable(id, START, PartitionSpec.unpartitioned(), SinkFixture.V2);
    // More than a batch (8192 records): the first one is handed to the writers without a commit.
    List<byte[]> messages = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      messages.add(message(i).getBytes(StandardCharsets.UTF_8));
    }
    SinkFixture.produce(kafka.bootstrapServers(), topic, 1, messages);

    // A commit interval of ten minutes and no stop at the end: this run never commits data.
    Process first = startSink(topic, id, "600000", "false");
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (catalog.loadTable(id).schema().findField("city") == null) {
        assertTrue(first.isAlive(), () -> "the sink exited before evolving the table: " + log(topic, "false"));
        assertTrue(System.nanoTime() < deadline, () -> "the sink did not evolve the table: " + log(topic, "false"));
        Thread.sleep(20);
      }
    } finally {
      first.destroyForcibly().waitFor();
    }
    Table killed = catalog.loadTable(id);
    assertNull(killed.currentSnapshot(), "no data was committed before the kill");
    int schemaId = killed.schema().schemaId();

    Process second = startSink(topic, id, "500", "true");
    assertTrue(second.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "the restarted sink did not finish");
    assertEquals(0, second.exitValue());
    Table table = catalog.loadTable(id);
    assertEquals(schemaId, table.schema().schemaId(), "the restart found the schema it needed");
    assertEquals(expectedRows(10_000), readRows(table));
  }

  private String log(String topic, String stopAtEnd) {
    try {
      return java.nio.file.Files.readString(warehouse.resolve(topic + "-" + stopAtEnd + ".log"));
    } catch (java.io.IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private Process startSink(String topic, TableIdentifier table, String commitIntervalMs, String stopAtEnd)
      throws java.io.IOException {
    String javaBin = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = List.of(javaBin, "-Xmx512m", "--enable-native-access=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
        SinkProcessMain.class.getName(), kafka.bootstrapServers(), warehouse.toString(), topic, table.toString(),
        topic, "1000000", commitIntervalMs, stopAtEnd, "true");
    return new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(warehouse.resolve(topic + "-" + stopAtEnd + ".log").toFile()).start();
  }

  /**
   * Upsert mode: keys change, and are deleted by tombstones, before and after the table gains a
   * column and after its identifier column outgrows int, all in one commit cycle (ten records a
   * batch). The table ends with exactly the latest row of each key: a key written before a move to
   * a new schema and changed after it keeps no old row.
   */
  @ParameterizedTest(name = "decodeAhead={0}")
  @ValueSource(booleans = {true, false})
  void upsertsKeepOneRowPerKeyAcrossTheSchemasOfACycle(boolean decodeAhead) throws Exception {
    String topic = "upserted-" + decodeAhead;
    kafka.createTopic(topic, 1);
    TableIdentifier id = TableIdentifier.of("evolve", "upserted_" + decodeAhead);
    catalog.createTable(id, EvolvingUpserts.SCHEMA, EvolvingUpserts.SPEC, SinkFixture.V2);
    EvolvingUpserts upserts = new EvolvingUpserts();
    dev.floe.kafka.RoundRobinProducer.sendTo(kafka.bootstrapServers(), topic,
        java.util.Collections.nCopies(upserts.keys.size(), 0), upserts.keys, upserts.values);
    SinkConfig config = oneEvolvingCycle(topic, id, decodeAhead).upsert(true).build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
      assertEquals(EvolvingUpserts.EVOLUTIONS, sink.metrics().getSchemaEvolutions(), "city, then id's widening");
      assertEquals(1, sink.metrics().getCommits());
    }
    Table table = catalog.loadTable(id);
    assertEquals(Types.LongType.get(), table.schema().findType("id"));
    assertEquals(upserts.latest, EvolvingUpserts.rows(table));
  }
}
