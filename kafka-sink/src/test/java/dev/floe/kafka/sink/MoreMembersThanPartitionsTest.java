package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three sinks that stop at the end of a one-partition topic, in one group: two of them get no
 * partition at first. Each stops: the owner at the topic's end, the others after taking the
 * partition over as members leave, at what the table holds (reading nothing again). The table
 * holds every record once, under each way a Kafka 4 group rebalances.
 */
class MoreMembersThanPartitionsTest extends BrokerAndCatalog {
  private static final int RECORDS = 2_000;

  MoreMembersThanPartitionsTest() {
    super("t");
  }

  @ParameterizedTest
  @ValueSource(strings = {"eager", "cooperative", "consumer"})
  void sinksWithoutPartitionsStopOnceTheGroupReachedTheEnd(String protocol) throws Exception {
    String topic = "members-" + protocol;
    TableIdentifier table = TableIdentifier.of("t", topic.replace('-', '_'));
    kafka.createTopic(topic, 1);
    List<byte[]> messages = new ArrayList<>();
    for (long id = 0; id < RECORDS; id++) {
      messages.add(keyed(id, id, "k"));
    }
    SinkFixture.produce(kafka.bootstrapServers(), topic, 1, messages);
    SinkConfig.Builder builder = SinkConfig.builder(catalog, kafka.bootstrapServers(), topic)
        .createTables(KEYED, PartitionSpec.unpartitioned(), V2)
        .route(topic, table)
        .stopAtEnd(true)
        .commitEvery(Duration.ofMillis(300), 500, Long.MAX_VALUE);
    SinkConfig config = RebalanceProtocolsTest.rebalancingBy(builder, protocol).build();
    ExecutorService threads = Executors.newFixedThreadPool(3);
    List<KafkaIcebergSink> sinks = new ArrayList<>();
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        KafkaIcebergSink sink = new KafkaIcebergSink(config);
        sinks.add(sink);
        runs.add(threads.submit(sink::run));
      }
      for (int i = 0; i < runs.size(); i++) {
        runs.get(i).get(90, TimeUnit.SECONDS); // a TimeoutException: sink i never stopped
      }
    } finally {
      sinks.forEach(KafkaIcebergSink::stop);
      threads.shutdownNow();
      for (KafkaIcebergSink sink : sinks) {
        sink.close();
      }
    }
    long consumed = sinks.stream().mapToLong(s -> s.metrics().getRecordsConsumed()).sum();
    Map<Long, Integer> rows = SinkFixture.rowsPerId(catalog.loadTable(table));
    assertEquals(RECORDS, rows.size());
    assertEquals(List.of(), rows.values().stream().filter(n -> n != 1).toList(), "every id once");
    assertEquals(RECORDS, consumed, "no record read twice");
  }
}
