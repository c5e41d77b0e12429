package dev.floe.flink.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.flink.HookedCatalog;
import dev.floe.flink.IcebergTableRef;
import dev.floe.iceberg.Catalogs;
import dev.floe.iceberg.DeletionVectorUpgrade;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A checkpoint of upserts written while the table was format v2 (a key written twice in it gives
 * a position-delete file) and committed after the table became v3, where Iceberg takes deletion
 * vectors only. Before, the commit failed, and failed again on every restore: the checkpoint's
 * files could never land, and its records were behind the restored source.
 */
class UpgradedBeforeCommitTest extends IdNameTableTest {
  private static final TableIdentifier TABLE = TableIdentifier.of("db", "keyed");
  /** Set: the next snapshot commit through the hooked catalog first upgrades the table to v3. */
  private static final AtomicBoolean UPGRADE_DURING_NEXT_COMMIT = new AtomicBoolean();

  UpgradedBeforeCommitTest() {
    super(TABLE, true);
  }

  @AfterEach
  void noUpgradeLeftArmed() {
    UPGRADE_DURING_NEXT_COMMIT.set(false);
  }

  @Test
  void aCheckpointPendingAtTheUpgradeLandsWithDeletionVectors() throws Exception {
    byte[] files = upsertedThreeTimes();
    assertTrue(positionDeleteFiles(files) > 0, "the checkpoint holds position deletes");
    upgrade();

    assertEquals(List.of(false), IdNameTable.commit(ref, List.of(new FloeCommittable(files, "job", "op", "run", 7))));

    assertLastValuesWithDeletionVectors(catalog.loadTable(TABLE));
  }

  @Test
  void anUpgradeLandingDuringTheCommitIsCommittedAgainWithDeletionVectors() throws Exception {
    byte[] files = upsertedThreeTimes();
    UPGRADE_DURING_NEXT_COMMIT.set(true);
    String at = warehouse.toString();
    IcebergTableRef upgrading = IcebergTableRef.of("floe",
        HookedCatalog.loader(warehouse, (table, base, metadata) -> upgradeFirst(table, base, metadata, at)), TABLE);

    assertEquals(List.of(false), IdNameTable.commit(upgrading, List.of(new FloeCommittable(files, "job", "op", "run", 7))));

    assertTrue(!UPGRADE_DURING_NEXT_COMMIT.get(), "the upgrade landed during the commit");
    assertLastValuesWithDeletionVectors(catalog.loadTable(TABLE));
  }

  /**
   * Position deletes in Avro, as Iceberg's own Flink sink writes them under {@code
   * write.delete.format.default} = avro (a committable of its sink restored into floe's), are
   * converted too (helper-65: only Parquet ones were).
   */
  @Test
  void avroPositionDeletesAreConvertedToo() throws Exception {
    byte[] files = upsertedThreeTimes();
    Table table = catalog.loadTable(TABLE);
    WriteResult written = WrittenFiles.fromBytes(files).toWriteResult(table.specs(), table.io());
    WriteResult.Builder asAvro = WriteResult.builder().addDataFiles(written.dataFiles());
    for (DeleteFile file : written.deleteFiles()) {
      asAvro.addDeleteFiles(file.content() == FileContent.POSITION_DELETES ? inAvro(table, file) : file);
    }
    upgrade();
    table.refresh();
    byte[] avroFiles = WrittenFiles.of(asAvro.build(), table.specs()).bytes();

    assertEquals(List.of(false), IdNameTable.commit(ref, List.of(new FloeCommittable(avroFiles, "job", "op", "run", 7))));

    assertLastValuesWithDeletionVectors(catalog.loadTable(TABLE));
  }

  /** The same position deletes, written again as an Avro file. */
  private static DeleteFile inAvro(Table table, DeleteFile parquet) throws Exception {
    PositionDeleteWriter<Record> writer = Avro.writeDeletes(table.io().newOutputFile(parquet.location() + ".avro"))
        .withSpec(table.specs().get(parquet.specId()))
        .withPartition(parquet.partition())
        .buildPositionWriter(); // paths and positions only, as floe's and Iceberg's sinks write them
    try (writer;
        CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(parquet.location()))
            .project(DeleteSchemaUtil.pathPosSchema())
            .createReaderFunc(schema -> GenericParquetReaders.buildReader(DeleteSchemaUtil.pathPosSchema(), schema))
            .build()) {
      PositionDelete<Record> delete = PositionDelete.create();
      for (Record row : rows) {
        writer.write(delete.set((CharSequence) row.get(0), (Long) row.get(1), null));
      }
    }
    DeleteFile avro = writer.toDeleteFile();
    assertEquals(FileFormat.AVRO, avro.format());
    return avro;
  }

  /**
   * A position delete of a data file the commit does not add (the table may hold a deletion vector
   * for it, which would have to be merged) is refused by name, not converted.
   */
  @Test
  void positionDeletesOfAFileOutsideTheCommitAreRefused() throws Exception {
    byte[] files = upsertedThreeTimes();
    upgrade();
    Table table = catalog.loadTable(TABLE);
    WriteResult written = WrittenFiles.fromBytes(files).toWriteResult(table.specs(), table.io());
    WriteResult withoutData = WriteResult.builder().addDeleteFiles(written.deleteFiles()).build();

    IllegalStateException refused =
        assertThrows(IllegalStateException.class, () -> DeletionVectorUpgrade.convert(table, withoutData));
    assertTrue(refused.getMessage().contains(written.dataFiles()[0].location())
        && refused.getMessage().contains("which this commit does not add"), refused.getMessage());
  }

  /** One writer's checkpoint: keys 0-49 written three times (r0-, r1-, r2-), the last values kept. */
  private byte[] upsertedThreeTimes() throws Exception {
    try (RowDataWriter writer = new RowDataWriter(ref,
        new RowDataWriterSettings(IdNameTable.ROWS, RowWriteMode.UPSERT, 16, Map.of()), 0, 0, new UnregisteredMetricsGroup())) {
      for (int round = 0; round < 3; round++) {
        for (long key = 0; key < 50; key++) {
          writer.write(GenericRowData.of(key, StringData.fromString("r" + round + "-" + key)), null);
        }
      }
      return WrittenFiles.concat(writer.prepareCommit()).bytes();
    }
  }

  private long positionDeleteFiles(byte[] files) throws Exception {
    Table table = catalog.loadTable(TABLE);
    WriteResult result = WrittenFiles.fromBytes(files).toWriteResult(table.specs(), table.io());
    return java.util.Arrays.stream(result.deleteFiles()).filter(f -> f.content() == FileContent.POSITION_DELETES).count();
  }

  private void upgrade() {
    catalog.loadTable(TABLE).updateProperties().set(TableProperties.FORMAT_VERSION, "3").commit();
  }

  private static void assertLastValuesWithDeletionVectors(Table table) throws Exception {
    assertEquals(3, TableUtil.formatVersion(table));
    Map<Long, List<String>> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(r -> rows.computeIfAbsent((Long) r.getField("id"), k -> new ArrayList<>()).add((String) r.getField("name")));
    }
    Map<Long, List<String>> expected = new TreeMap<>();
    for (long key = 0; key < 50; key++) {
      expected.put(key, List.of("r2-" + key));
    }
    assertEquals(expected, rows);
    List<String> positionDeletes = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile d : task.deletes()) {
          if (d.content() == FileContent.POSITION_DELETES) {
            positionDeletes.add(ContentFileUtil.isDV(d) ? "dv" : d.location());
          }
        }
      }
    }
    assertTrue(!positionDeletes.isEmpty() && positionDeletes.stream().allMatch("dv"::equals), positionDeletes.toString());
    assertTrue(Integer.parseInt(table.currentSnapshot().summary().getOrDefault("added-dvs", "0")) > 0,
        table.currentSnapshot().summary().toString());
  }

  /** Upgrades the table to v3 through another handle just before the next snapshot commit, when armed. */
  private static void upgradeFirst(TableIdentifier table, TableMetadata base, TableMetadata metadata, String warehouse) {
    if (HookedCatalog.addsSnapshot(base, metadata) && UPGRADE_DURING_NEXT_COMMIT.compareAndSet(true, false)) {
      Catalog other = Catalogs.embedded(Path.of(warehouse));
      try {
        other.loadTable(table).updateProperties().set(TableProperties.FORMAT_VERSION, "3").commit();
      } finally {
        try {
          ((AutoCloseable) other).close();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    }
  }
}
