package dev.floe.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.flink.sink.FloeIcebergSink;
import dev.floe.iceberg.Catalogs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * An upsert job whose table is upgraded from format v2 to v3 while it runs: at the snapshot of a
 * checkpoint, so that checkpoint's position deletes, written for v2, are committed to a v3 table
 * (and the writers go on writing v2 ones until they restart). Every checkpoint lands, as deletion
 * vectors, and the table holds each key's last value once. Before, the commit failed on every
 * restore (Iceberg takes no position-delete files in v3), and so does Iceberg's own Flink sink.
 */
public class TableUpgradedMidJobTest extends EmbeddedCatalogTest {
  private static final Schema KEYED = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "seq", Types.IntegerType.get())), Set.of(1));
  private static final int KEYS = 200;
  private static final int ROWS = 20_000;
  /** The checkpoint at whose snapshot the table was upgraded (0: not yet); the job's operators share this JVM. */
  static final AtomicLong UPGRADED_AT = new AtomicLong();
  static volatile Path upgradeWarehouse;

  @Test
  void checkpointsWrittenForV2LandAsDeletionVectorsAfterTheUpgrade() throws Exception {
    TableIdentifier id = TableIdentifier.of("db", "upgraded");
    catalog.createTable(id, KEYED, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    RowType type = FlinkSchemaUtil.convert(KEYED);
    List<RowData> rows = new ArrayList<>();
    Map<Long, Integer> lastSeq = new TreeMap<>();
    for (int i = 0; i < ROWS; i++) {
      long key = i % KEYS;
      rows.add(GenericRowData.of(key, StringData.fromString("n" + i), i));
      lastSeq.put(key, i);
    }
    UPGRADED_AT.set(0);
    upgradeWarehouse = warehouse;

    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none"); // a failed commit fails the test
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);
    env.enableCheckpointing(200);
    DataStream<RowData> in = env.fromData(rows, InternalTypeInfo.of(type)).setParallelism(1)
        .map(new UpgradeAtSecondCheckpoint(id)).returns(InternalTypeInfo.of(type)).setParallelism(1);
    FloeIcebergSink.forRowData(IcebergTableRef.embedded(warehouse, id)).upsert(true).writeParallelism(2).append(in);
    env.execute("upsert job across a v3 upgrade");

    assertTrue(UPGRADED_AT.get() > 0, "the table was upgraded while the job ran");
    Table table = catalog.loadTable(id);
    assertEquals(3, TableUtil.formatVersion(table));
    Map<Long, List<Integer>> read = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(r -> read.computeIfAbsent((Long) r.getField("id"), k -> new ArrayList<>()).add((Integer) r.getField("seq")));
    }
    Map<Long, List<Integer>> expected = new TreeMap<>();
    lastSeq.forEach((key, seq) -> expected.put(key, List.of(seq)));
    assertEquals(expected, read, "each key once, at its last value");

    long dvsAfterUpgrade = 0;
    for (Snapshot s : table.snapshots()) {
      String checkpoint = s.summary().get("flink.max-committed-checkpoint-id");
      if (checkpoint != null && Long.parseLong(checkpoint) >= UPGRADED_AT.get()) {
        dvsAfterUpgrade += Long.parseLong(s.summary().getOrDefault("added-dvs", "0"));
        assertEquals("0", s.summary().getOrDefault("added-position-delete-files", "0"), s.summary().toString());
      }
    }
    assertTrue(dvsAfterUpgrade > 0, "the checkpoints committed after the upgrade deleted by deletion vectors");
  }

  /** Passes rows on, a little slowly; upgrades the table to v3 when it snapshots checkpoint 2. */
  static final class UpgradeAtSecondCheckpoint implements MapFunction<RowData, RowData>, CheckpointedFunction {
    private final String table;
    private long seen;

    UpgradeAtSecondCheckpoint(TableIdentifier table) {
      this.table = table.toString();
    }

    @Override
    public RowData map(RowData row) throws InterruptedException {
      if (++seen % 4 == 0) {
        Thread.sleep(1);
      }
      return row;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
      if (context.getCheckpointId() >= 2 && UPGRADED_AT.get() == 0) {
        Catalog catalog = Catalogs.embedded(upgradeWarehouse);
        try {
          catalog.loadTable(TableIdentifier.parse(table)).updateProperties()
              .set(TableProperties.FORMAT_VERSION, "3").commit();
        } finally {
          IcebergTableRef.close(catalog);
        }
        UPGRADED_AT.set(context.getCheckpointId());
      }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
  }
}
