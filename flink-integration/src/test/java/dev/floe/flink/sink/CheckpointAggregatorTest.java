package dev.floe.flink.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.flink.IcebergTableRef;
import dev.floe.iceberg.Catalogs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The aggregator's committables: one per checkpoint, also for a checkpoint aborted before its barrier got there. */
class CheckpointAggregatorTest {
  private static final TableIdentifier TABLE = TableIdentifier.of("db", "keyed");

  @TempDir
  Path warehouse;

  /**
   * Checkpoint 1 is aborted after the writer sent its files (key 1 inserted) and before the
   * aggregator's barrier; checkpoint 2 updates key 1. Committed as one checkpoint, the update's
   * equality delete would not reach the insert's row, and key 1 would have two rows.
   */
  @Test
  void filesOfACheckpointAbortedBeforeItsBarrierCommitAheadOfTheNextOnes() throws Exception {
    assertKeyOneHasOneRow(aggregator -> aggregator.prepareSnapshotPreBarrier(2));
  }

  /**
   * The same when input ends after checkpoint 1 was aborted: the writer numbers its last files 2,
   * as Flink's writer operator does at end of input (before, finish() merged 1 and 2; helper-39).
   */
  @Test
  void filesOfACheckpointAbortedBeforeItsBarrierCommitAheadOfTheFinalOnes() throws Exception {
    assertKeyOneHasOneRow(aggregator -> aggregator.getOperator().finish());
  }

  private interface Step {
    void run(OneInputStreamOperatorTestHarness<CommittableMessage<WrittenFiles>, CommittableMessage<FloeCommittable>> aggregator)
        throws Exception;
  }

  /** Key 1 inserted for checkpoint 1 (aborted before the aggregator's barrier), updated for 2, then {@code emit}. */
  private void assertKeyOneHasOneRow(Step emit) throws Exception {
    Catalog catalog = Catalogs.embedded(warehouse);
    IcebergTableRef ref;
    try {
      ref = IdNameTable.create(catalog, warehouse, TABLE, true);
    } finally {
      ((AutoCloseable) catalog).close();
    }

    List<FloeCommittable> committables = new ArrayList<>();
    try (RowDataWriter writer = new RowDataWriter(
            ref, new RowDataWriterSettings(IdNameTable.ROWS, RowWriteMode.UPSERT, 16, Map.of()), 0, 0, new UnregisteredMetricsGroup());
        OneInputStreamOperatorTestHarness<CommittableMessage<WrittenFiles>, CommittableMessage<FloeCommittable>> aggregator =
            new OneInputStreamOperatorTestHarness<>(new CheckpointAggregator(null, Long.MAX_VALUE))) {
      aggregator.open();
      writer.write(GenericRowData.ofKind(RowKind.INSERT, 1L, StringData.fromString("v1")), null);
      send(aggregator, 1, writer.prepareCommit());
      writer.write(GenericRowData.ofKind(RowKind.UPDATE_AFTER, 1L, StringData.fromString("v2")), null);
      send(aggregator, 2, writer.prepareCommit());
      emit.run(aggregator); // no barrier 1: checkpoint 1 was aborted

      List<Long> summaries = new ArrayList<>();
      for (CommittableMessage<FloeCommittable> message : aggregator.extractOutputValues()) {
        if (message instanceof CommittableSummary<FloeCommittable> summary) {
          summaries.add(summary.getCheckpointIdOrEOI());
        } else if (message instanceof CommittableWithLineage<FloeCommittable> lineage) {
          assertEquals(lineage.getCheckpointIdOrEOI(), lineage.getCommittable().checkpointId());
          committables.add(lineage.getCommittable());
        }
      }
      assertEquals(List.of(1L, 2L), summaries);
      assertEquals(List.of(1L, 2L), committables.stream().map(FloeCommittable::checkpointId).toList());
    }

    // Checkpoint 2 completes: Flink hands the committer every committable up to it, in one call
    assertEquals(List.of(false, false), IdNameTable.commit(ref, committables));
    List<String> all = new ArrayList<>();
    catalog = Catalogs.embedded(warehouse);
    try (CloseableIterable<Record> read = IcebergGenerics.read(catalog.loadTable(TABLE)).build()) {
      for (Record r : read) {
        all.add(r.getField("id") + "=" + r.getField("name"));
      }
    } finally {
      ((AutoCloseable) catalog).close();
    }
    assertEquals(List.of("1=v2"), all);
  }

  private static void send(
      OneInputStreamOperatorTestHarness<CommittableMessage<WrittenFiles>, ?> aggregator, long checkpointId,
      Collection<WrittenFiles> files) throws Exception {
    for (WrittenFiles f : files) {
      aggregator.processElement(new StreamRecord<>(new CommittableWithLineage<>(f, checkpointId, 0)));
    }
  }
}
