package dev.floe.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.flink.sink.FloeIcebergSink;
import dev.floe.iceberg.Catalogs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An upsert job whose table another writer changes while it runs, at the snapshot of a checkpoint
 * (so the files of that checkpoint, written before the change, are committed after it):
 *
 * <ul>
 *   <li>upgraded from format v2 to v3: those checkpoints' position deletes land as deletion
 *       vectors (the writers go on writing v2 ones until they restart). Before, the commit failed
 *       on every restore, since Iceberg takes no position-delete files in v3 (nor does it convert
 *       them: its own Flink sinks fail the same way);
 *   <li>a column renamed and another dropped, then a task failure: the restored writers write the
 *       renamed column and leave the dropped one out. Before, they refused the rows on every
 *       restore ("the rows have a field that the table lacks").
 * </ul>
 *
 * Each key's last row is in the table once.
 */
public class TableChangedMidJobTest extends EmbeddedCatalogTest {
  private static final Schema KEYED = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "seq", Types.IntegerType.get()),
      Types.NestedField.optional(4, "note", Types.StringType.get())), Set.of(1));
  private static final int KEYS = 200;
  private static final int ROWS = 20_000;
  /** The checkpoint at whose snapshot the table was changed (0: not yet); the job's operators share this JVM. */
  static final AtomicLong CHANGED_AT = new AtomicLong();
  /** Whether the job is to fail once, after a checkpoint past the change completed. */
  static final AtomicBoolean FAIL_AFTER_CHANGE = new AtomicBoolean();
  static final AtomicBoolean FAILED = new AtomicBoolean();
  static volatile Path changeWarehouse;
  static volatile String changedTable;
  static volatile Consumer<Table> change;

  private final Map<Long, Integer> lastSeq = new TreeMap<>();
  private final List<RowData> rows = new ArrayList<>();

  @BeforeEach
  void changelog() {
    for (int i = 0; i < ROWS; i++) {
      long key = i % KEYS;
      rows.add(GenericRowData.of(key, StringData.fromString("n" + i), i, StringData.fromString("note " + i)));
      lastSeq.put(key, i);
    }
  }

  @Test
  void checkpointsWrittenForV2LandAsDeletionVectorsAfterTheUpgrade() throws Exception {
    Table table = run("upgraded", t -> t.updateProperties().set(TableProperties.FORMAT_VERSION, "3").commit(), false);

    assertEquals(3, TableUtil.formatVersion(table));
    assertEquals(lastRows(), read(table, "seq"), "each key once, at its last value");
    long dvsAfterUpgrade = 0;
    for (Snapshot s : table.snapshots()) {
      String checkpoint = s.summary().get("flink.max-committed-checkpoint-id");
      if (checkpoint != null && Long.parseLong(checkpoint) >= CHANGED_AT.get()) {
        dvsAfterUpgrade += Long.parseLong(s.summary().getOrDefault("added-dvs", "0"));
        assertEquals("0", s.summary().getOrDefault("added-position-delete-files", "0"), s.summary().toString());
      }
    }
    assertTrue(dvsAfterUpgrade > 0, "the checkpoints committed after the upgrade deleted by deletion vectors");
  }

  @Test
  void restoredWritersWriteARenamedColumnAndLeaveADroppedOneOut() throws Exception {
    Table table = run("renamed", t -> t.updateSchema().renameColumn("seq", "sequence").deleteColumn("note").commit(), true);

    assertTrue(FAILED.get(), "the job failed once after the change, and its writers were restored");
    assertEquals(List.of("id", "name", "sequence"), table.schema().columns().stream().map(Types.NestedField::name).toList());
    assertEquals(lastRows(), read(table, "sequence"), "each key once, at its last value");
  }

  /** Runs the upsert job on a fresh v2 table {@code name}, changed by {@code what} at checkpoint 2; returns the table. */
  private Table run(String name, Consumer<Table> what, boolean failAfter) throws Exception {
    TableIdentifier id = TableIdentifier.of("db", name);
    catalog.createTable(id, KEYED, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    CHANGED_AT.set(0);
    FAIL_AFTER_CHANGE.set(failAfter);
    FAILED.set(false);
    changeWarehouse = warehouse;
    changedTable = id.toString();
    change = what;

    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, failAfter ? 1 : 0); // no other failure
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);
    env.enableCheckpointing(200);
    RowType type = FlinkSchemaUtil.convert(KEYED);
    DataStream<RowData> in = env.fromData(rows, InternalTypeInfo.of(type)).setParallelism(1)
        .map(new ChangeTableAtSecondCheckpoint()).returns(InternalTypeInfo.of(type)).setParallelism(1);
    FloeIcebergSink.forRowData(IcebergTableRef.embedded(warehouse, id)).upsert(true).writeParallelism(2).append(in);
    env.execute("upsert job across a table change");

    assertTrue(CHANGED_AT.get() > 0, "the table was changed while the job ran");
    return catalog.loadTable(id);
  }

  private Map<Long, List<Integer>> lastRows() {
    Map<Long, List<Integer>> out = new TreeMap<>();
    lastSeq.forEach((key, seq) -> out.put(key, List.of(seq)));
    return out;
  }

  private static Map<Long, List<Integer>> read(Table table, String column) throws Exception {
    Map<Long, List<Integer>> out = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(r -> out.computeIfAbsent((Long) r.getField("id"), k -> new ArrayList<>()).add((Integer) r.getField(column)));
    }
    return out;
  }

  /**
   * Passes rows on, a little slowly; changes the table when it snapshots checkpoint 2 and, if
   * asked, fails once after a later checkpoint completed.
   */
  static final class ChangeTableAtSecondCheckpoint implements MapFunction<RowData, RowData>, CheckpointedFunction,
      CheckpointListener {
    private long seen;
    private boolean failNext;

    @Override
    public RowData map(RowData row) throws InterruptedException {
      if (failNext && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("failing once after the table changed, as a task may");
      }
      if (++seen % 4 == 0) {
        Thread.sleep(1);
      }
      return row;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
      if (context.getCheckpointId() >= 2 && CHANGED_AT.get() == 0) {
        Catalog catalog = Catalogs.embedded(changeWarehouse);
        try {
          change.accept(catalog.loadTable(TableIdentifier.parse(changedTable)));
        } finally {
          IcebergTableRef.close(catalog);
        }
        CHANGED_AT.set(context.getCheckpointId());
      }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      failNext = FAIL_AFTER_CHANGE.get() && CHANGED_AT.get() > 0 && checkpointId > CHANGED_AT.get();
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
  }
}
