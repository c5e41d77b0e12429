package dev.floe.kafka.sink;

import static org.junit.jupiter.api.Assertions.assertNull;

import dev.floe.corpus.CorpusSchemas;
import dev.floe.corpus.NexmarkEvent;
import dev.floe.corpus.NexmarkGenerator;
import dev.floe.corpus.NexmarkJson;
import dev.floe.kafka.RoundRobinProducer;
import dev.floe.kafka.TopicReader;
import dev.floe.testing.Canonical;
import dev.floe.testing.TableFingerprint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/** Shared by the sink tests: the Nexmark corpus, producing it, and checking a table against it. */
final class SinkFixture {
  static final Schema NEXMARK = SchemaParser.fromJson(CorpusSchemas.nexmarkJson());
  /** The 4-bucket layout: bids by auction (persons and auctions land in the null partition). */
  static final PartitionSpec BUCKETS = PartitionSpec.builderFor(NEXMARK).bucket("bid.auction", 4).build();
  static final Map<String, String> V2 = Map.of(TableProperties.FORMAT_VERSION, "2");

  /** Small keyed records: {@code {"id":..,"seq":..,"kind":".."}}, identified by id. */
  static final Schema KEYED =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.required(2, "seq", Types.LongType.get()),
              Types.NestedField.optional(3, "kind", Types.StringType.get())),
          Set.of(1));

  private SinkFixture() {}

  static byte[] keyed(long id, long seq, String kind) {
    return ("{\"id\":" + id + ",\"seq\":" + seq + ",\"kind\":\"" + kind + "\"}").getBytes(StandardCharsets.UTF_8);
  }

  /** id -> how many rows the table holds with it, read by Iceberg's generic reader. */
  static Map<Long, Integer> rowsPerId(Table table) throws IOException {
    table.refresh();
    Map<Long, Integer> out = new java.util.TreeMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record r : rows) {
        out.merge((Long) r.getField("id"), 1, Integer::sum);
      }
    }
    return out;
  }

  /** id -> seq of every row the table holds, read by Iceberg's generic reader; fails on two rows with one id. */
  static Map<Long, Long> seqById(Table table) throws IOException {
    Map<Long, Long> out = new HashMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record r : rows) {
        Long previous = out.put((Long) r.getField("id"), (Long) r.getField("seq"));
        assertNull(previous, "two rows for id " + r.getField("id"));
      }
    }
    return out;
  }

  static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic, int expected) {
    return TopicReader.readAll(bootstrap, topic, expected);
  }

  /** Produces message i to partition {@code partitions.get(i)} (a null message is a tombstone). */
  static void produceTo(String bootstrap, String topic, List<Integer> partitions, List<byte[]> messages) {
    RoundRobinProducer.sendTo(bootstrap, topic, partitions, messages);
  }

  /** The first {@code count} events of the seeded Nexmark stream. */
  static List<NexmarkEvent> events(long seed, int count) {
    NexmarkGenerator generator = new NexmarkGenerator(seed);
    List<NexmarkEvent> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(generator.next());
    }
    return out;
  }

  /** Produces each message to partition {@code i % partitions}, acknowledged by all replicas. */
  static void produce(String bootstrap, String topic, int partitions, List<byte[]> messages) {
    RoundRobinProducer.send(bootstrap, topic, partitions, messages);
  }

  static List<byte[]> json(List<NexmarkEvent> events) {
    return events.stream().map(NexmarkJson::toBytes).toList();
  }

  static TableFingerprint expected(List<NexmarkEvent> events) {
    return TableFingerprint.ofCanonical(events.stream().map(Canonical::nexmark).toList());
  }

  /** The offsets the table's snapshots store for {@code group}, latest per partition. */
  static Map<TopicPartition, Long> storedOffsets(Table table, String group) {
    Map<TopicPartition, Long> latest = new HashMap<>();
    for (Snapshot s : table.snapshots()) {
      String json = s.summary().get(SnapshotOffsets.key(group));
      if (json != null) {
        latest.putAll(SnapshotOffsets.nextOffsets(SnapshotOffsets.parse(json))); // snapshots() is in commit order
      }
    }
    return latest;
  }
}
