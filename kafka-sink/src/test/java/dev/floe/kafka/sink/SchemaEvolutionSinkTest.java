package dev.floe.kafka.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordPolicy;
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

    SinkConfig config = SinkConfig.builder(catalog, kafka.bootstrapServers(), topic)
        .route(topic, id)
        .batches(10, 1 << 20, 64 << 20) // ten records a batch: the changes come mid-cycle
        .commitEvery(Duration.ofMinutes(5), 1_000_000, Long.MAX_VALUE)
        .badRecords(BadRecordPolicy.DEAD_LETTER, topic + "-dlq")
        .evolveSchema(true)
        .decodeAhead(decodeAhead)
        .stopAtEnd(true)
        .build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
      assertEquals(100, sink.metrics().getRowsWritten());
      assertEquals(1, sink.metrics().getDeadLettered());
      assertEquals(0, sink.metrics().getUnknownFieldValues(), "every field found a column");
      assertEquals(3, sink.metrics().getSchemaEvolutions(), "city, then geo, then n's widening");
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

    Map<Long, List<Object>> rows = dev.floe.testing.TableRows.byId(table, "id", "name", "n", "city", "geo");
    Map<Long, List<Object>> expected = new TreeMap<>();
    for (long i = 0; i < 100; i++) {
      expected.put(i, Arrays.asList("n" + i, i < 90 ? i : 3_000_000_000L + i, i < 30 ? null : "c" + (i % 3),
          i < 60 ? null : List.of(i + 0.5, List.of("t" + i))));
    }
    Map<Long, List<Object>> actual = new TreeMap<>();
    rows.forEach((key, values) -> {
      List<Object> flat = new ArrayList<>(values);
      if (flat.get(3) instanceof Record geo) {
        flat.set(3, List.of(geo.getField("lat"), geo.getField("tags")));
      }
      actual.put(key, flat);
    });
    assertEquals(expected, actual);

    List<ConsumerRecord<byte[], byte[]>> dead = SinkFixture.readAll(kafka.bootstrapServers(), topic + "-dlq", 1);
    assertEquals("{\"id\":100,\"city\":7}", new String(dead.getFirst().value(), StandardCharsets.UTF_8));
    String reason = new String(dead.getFirst().headers().lastHeader(DeadLetters.ERROR).value(), StandardCharsets.UTF_8);
    assertTrue(reason.contains("city"), reason);
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
  void evolutionWithUpsertIsRefused() {
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
        () -> SinkConfig.builder(catalog, kafka.bootstrapServers(), "g")
            .route("t", TableIdentifier.of("evolve", "t")).upsert(true).evolveSchema(true).build());
    assertTrue(refused.getMessage().contains("upsert"), refused.getMessage());
  }
}
