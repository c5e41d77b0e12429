package dev.floe.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.flink.sink.FloeIcebergSink;
import dev.floe.kafka.RoundRobinProducer;
import dev.floe.testing.TableRows;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Raw-path upserts into a new, unpartitioned table; another writer adds a bucket on the key at the
 * first checkpoint, and that checkpoint's commit lands late. The writers, following the table,
 * switch to the new spec while the first checkpoint's rows (old spec) are not in the table yet, so
 * the table shows no data in the old spec: their upserts must still delete there, or the first
 * checkpoint's rows of every key changed later stay (helper-64 found the same race in the Kafka
 * sink). Each key's latest row, once.
 */
class SpecChangedBeforeACommitTest extends FlinkJobsOnKafka {
  private static final TableIdentifier TABLE = TableIdentifier.of("nexmark", "respecced");
  private static final AtomicBoolean RESPECCED = new AtomicBoolean();
  private static final AtomicBoolean FIRST_COMMIT_HELD = new AtomicBoolean();

  @Test
  void upsertsDeleteInTheSpecTheirOwnPendingRowsWereWrittenIn() throws Exception {
    List<byte[]> keys = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    List<Integer> partitions = new ArrayList<>();
    Map<Long, List<Object>> latest = new TreeMap<>();
    for (long seq = 0; seq < 6000; seq++) {
      long id = seq % 200;
      keys.add(("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8));
      values.add(("{\"id\":" + id + ",\"seq\":" + seq + "}").getBytes(StandardCharsets.UTF_8));
      partitions.add((int) (id % 2));
      latest.put(id, List.of(seq));
    }
    kafka.createTopic("respec", 2);
    RoundRobinProducer.sendTo(kafka.bootstrapServers(), "respec", partitions, keys, values);
    Schema keyed = new Schema(List.of(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "seq", Types.LongType.get())), Set.of(1));
    catalog.createTable(TABLE, keyed, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));

    StreamExecutionEnvironment env = environment(0);
    IcebergTableRef ref = IcebergTableRef.of("floe", HookedCatalog.loader(warehouse, SpecChangedBeforeACommitTest::holdFirstCommit), TABLE);
    FloeIcebergSink.forKafkaPayloads(ref)
        .upsert(true)
        .batchMessages(64)
        .append(throttled(payloads(env, "respec")).map(new RespecAtFirstCheckpoint()).returns(KafkaPayload.class));
    env.execute("upserts across a spec change");

    assertTrue(RESPECCED.get() && FIRST_COMMIT_HELD.get(), "the spec changed and the first commit was held");
    Table table = catalog.loadTable(TABLE);
    assertEquals(1, table.spec().specId());
    assertEquals(latest, TableRows.byId(table, "id", "seq"));
  }

  /** Passes payloads on; adds a bucket on the key when it snapshots the first checkpoint. */
  static final class RespecAtFirstCheckpoint implements MapFunction<KafkaPayload, KafkaPayload>, CheckpointedFunction {
    @Override
    public KafkaPayload map(KafkaPayload payload) {
      return payload;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
      if (RESPECCED.compareAndSet(false, true)) {
        catalog.loadTable(TABLE).updateSpec().addField(Expressions.bucket("id", 4)).commit();
      }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
  }

  /** Holds the first snapshot commit 2 s: the writers go on meanwhile. */
  private static void holdFirstCommit(TableIdentifier table, TableMetadata base, TableMetadata metadata) {
    if (HookedCatalog.addsSnapshot(base, metadata) && FIRST_COMMIT_HELD.compareAndSet(false, true)) {
      try {
        Thread.sleep(2_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
