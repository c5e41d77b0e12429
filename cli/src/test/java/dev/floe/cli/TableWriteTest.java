package dev.floe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.iceberg.Catalogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code floe write --table} into the embedded catalog, read back with Iceberg's own readers. */
class TableWriteTest {
  private static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");

  @TempDir Path dir;

  @Test
  void createsAPartitionedTableThenAppendsSkippingBadLinesAndReadsBackExactly() throws Exception {
    List<List<Object>> first = TestRows.rows(4, 1, 1500);
    Files.write(dir.resolve("first.jsonl"), TestRows.jsonLines(first));
    WriteCommandTest.Mixed mixed = WriteCommandTest.Mixed.build(100_001);
    Files.write(dir.resolve("mixed.jsonl"), mixed.bytes());
    TestRows.writeSchema(dir);

    // A partitioning the schema does not take is bad usage (exit 2, as the README says), and creates nothing.
    CliProcess.Result misspelled =
        CliProcess.run(dir, "write", "--input", "first.jsonl", "--schema", "schema.json", "--table", "db.events",
            "--warehouse", "wh", "--partition-by", "bukket(4,id)");
    assertEquals(FloeCli.EXIT_USAGE, misspelled.exitCode(), misspelled.err());
    assertTrue(misspelled.err().contains("--partition-by partition term 'bukket(4,id)': unknown transform 'bukket'"), misspelled.err());

    CliProcess.Result created =
        CliProcess.run(dir, "write", "--input", "first.jsonl", "--schema", "schema.json", "--table", "db.events",
            "--warehouse", "wh", "--partition-by", "bucket(4,id),day(ts)");
    assertEquals(0, created.exitCode(), created.err());
    assertTrue(created.out().startsWith("floe write: first.jsonl -> db.events (created, snapshot "), created.out());
    assertTrue(created.out().contains("rows written   1,500\n"), created.out());

    // The table exists now: no --schema needed; its schema and partitioning decide. The same
    // catalog, given by its properties this time.
    Path wh = dir.resolve("wh").toAbsolutePath();
    CliProcess.Result appended =
        CliProcess.run(dir, "write", "--input", "mixed.jsonl", "--table", "db.events", "--on-error", "skip",
            "--catalog-property", "type=jdbc", "--catalog-property", "uri=jdbc:sqlite:" + wh.resolve("catalog.db"),
            "--catalog-property", "warehouse=" + wh);
    assertEquals(0, appended.exitCode(), appended.err());
    assertTrue(appended.out().contains("rows written   200\n"), appended.out());
    assertTrue(appended.out().contains("rows rejected  5 (skipped)\n"), appended.out());
    List<String> skipped = new ArrayList<>();
    for (WriteCommandTest.Mixed.Bad bad : mixed.bad()) {
      skipped.add("floe write: skipped line " + bad.line() + ": " + WriteCommandTest.reasonAlone(bad.bytes()));
    }
    assertEquals(skipped, appended.errLines());

    List<List<Object>> expected = new ArrayList<>(first);
    expected.addAll(mixed.good());
    Map<Long, Long[]> idRangeByFile = new HashMap<>();
    Catalog catalog = Catalogs.embedded(dir.resolve("wh"));
    try {
      Table table = catalog.loadTable(EVENTS);
      assertEquals(List.of(), compareRows(expected, table));

      List<Snapshot> snapshots = new ArrayList<>();
      table.snapshots().forEach(snapshots::add);
      assertEquals(2, snapshots.size());
      assertEquals("1500", snapshots.get(0).summary().get("added-records"));
      assertEquals("200", snapshots.get(1).summary().get("added-records"));

      // Every row sits in a file of its own partition, as Iceberg's PartitionKey computes it.
      PartitionSpec spec = table.spec();
      assertEquals("[id_bucket=bucket[4](1), ts_day=day(7)]", spec.fields().stream()
          .map(f -> f.name() + "=" + f.transform() + "(" + f.sourceId() + ")").toList().toString());
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        for (FileScanTask task : tasks) {
          DataFile file = task.file();
          String partition = spec.partitionToPath(file.partition());
          long min = Long.MAX_VALUE;
          long max = Long.MIN_VALUE;
          for (Record row : readFile(table, file)) {
            PartitionKey key = new PartitionKey(spec, table.schema());
            key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(row));
            assertEquals(partition, spec.partitionToPath(key), file.location());
            min = Math.min(min, (Long) row.getField("id"));
            max = Math.max(max, (Long) row.getField("id"));
          }
          idRangeByFile.put((long) file.location().hashCode(), new Long[] {min, max});
        }
      }
    } finally {
      ((AutoCloseable) catalog).close();
    }

    // inspect --json shows the same table: snapshots, files with partitions, records, bounds.
    CliProcess.Result inspect = CliProcess.run(dir, "inspect", "--table", "db.events", "--warehouse", "wh", "--json");
    assertEquals(0, inspect.exitCode(), inspect.err());
    JsonNode report = new ObjectMapper().readTree(inspect.out());
    assertEquals(2, report.get("snapshots").size());
    assertEquals("id_bucket=bucket[4](id), ts_day=day(ts)", report.get("partitioning").asText());
    long records = 0;
    for (JsonNode file : report.get("data_files")) {
      records += file.get("records").asLong();
      assertTrue(file.get("partition").asText().matches("id_bucket=[0-3]/ts_day=(2024-0[23]-\\d\\d|null)"), file.toString());
      Long[] ids = idRangeByFile.get((long) file.get("location").asText().hashCode());
      JsonNode id = file.get("columns").get(0);
      assertEquals("id", id.get("column").asText());
      assertEquals(file.get("records").asLong(), id.get("values").asLong());
      assertEquals(String.valueOf(ids[0]), id.get("lower").asText(), file.toString());
      assertEquals(String.valueOf(ids[1]), id.get("upper").asText(), file.toString());
    }
    assertEquals(idRangeByFile.size(), report.get("data_files").size());
    assertEquals(1700, records);

    CliProcess.Result text = CliProcess.run(dir, "inspect", "--table", "db.events", "--warehouse", "wh");
    assertEquals(0, text.exitCode(), text.err());
    List<String> lines = text.out().lines().toList();
    assertEquals("table         db.events", lines.get(0));
    assertEquals("current       snapshot " + report.get("current_snapshot_id").asLong(), lines.get(3));
    assertEquals("partitioning  id_bucket=bucket[4](id), ts_day=day(ts)", lines.get(4));
    assertTrue(lines.contains(String.format("data files    %d, 1,700 records, %,d bytes", idRangeByFile.size(),
        sum(report.get("data_files"), "size"))), text.out());
    assertEquals(idRangeByFile.size(), lines.stream().filter(l -> l.startsWith("    partition  id_bucket=")).count());

    // Flags that would do nothing are refused, naming them (before, they were ignored).
    CliProcess.Result named = CliProcess.run(dir, "inspect", "--table", "db.events", "--warehouse", "wh",
        "--catalog-name", "other");
    assertEquals(2, named.exitCode(), named.err());
    assertTrue(named.err().contains("--catalog-name names a catalog built from --catalog-property"), named.err());
    CliProcess.Result fileFlags = CliProcess.run(dir, "inspect", "first.jsonl", "--max-files", "3");
    assertEquals(2, fileFlags.exitCode(), fileFlags.err());
    assertTrue(fileFlags.err().contains("--max-files goes with --table"), fileFlags.err());
    // A mistyped warehouse is named, and no catalog is made there (helper-61: before, one was).
    CliProcess.Result typo = CliProcess.run(dir, "inspect", "--table", "db.events", "--warehouse", "wj");
    assertEquals(2, typo.exitCode(), typo.err());
    assertTrue(typo.err().contains("wj holds no catalog (no catalog.db there)"), typo.err());
    assertFalse(Files.exists(dir.resolve("wj")), "no warehouse made by inspect");
  }

  @Test
  void evolveSchemaAddsTheFieldsLinesCarryAndWidensInOneCommit() throws Exception {
    Files.writeString(dir.resolve("schema.json"), "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        + "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        + "{\"id\":2,\"name\":\"n\",\"required\":false,\"type\":\"int\"}]}");
    Files.writeString(dir.resolve("first.jsonl"), "{\"id\":1,\"n\":1}\n");
    CliProcess.Result created = CliProcess.run(dir, "write", "--input", "first.jsonl", "--schema", "schema.json",
        "--table", "db.growing", "--warehouse", "wh");
    assertEquals(0, created.exitCode(), created.err());
    Files.writeString(dir.resolve("grown.jsonl"), String.join("\n",
        "{\"id\":2,\"n\":2,\"city\":\"a\"}",
        "{\"id\":3,\"n\":3000000000,\"geo\":{\"lat\":1.5,\"tags\":[\"x\"]}}",
        "{\"id\":4,\"city\":5}") + "\n");

    CliProcess.Result refused = CliProcess.run(dir, "write", "--input", "grown.jsonl", "--table", "db.growing",
        "--warehouse", "wh", "--evolve-schema", "--strict");
    assertEquals(2, refused.exitCode(), refused.err());
    CliProcess.Result evolved = CliProcess.run(dir, "write", "--input", "grown.jsonl", "--table", "db.growing",
        "--warehouse", "wh", "--evolve-schema", "--on-error", "skip");
    assertEquals(0, evolved.exitCode(), evolved.err());
    assertTrue(evolved.out().contains("rows written   2\n"), evolved.out());
    assertTrue(evolved.out().contains("rows rejected  1 (skipped)\n"), evolved.out());
    assertTrue(evolved.err().contains("skipped line 3") && evolved.err().contains("city"), evolved.err());

    Catalog catalog = Catalogs.embedded(dir.resolve("wh"));
    try {
      Table table = catalog.loadTable(TableIdentifier.of("db", "growing"));
      assertEquals(org.apache.iceberg.types.Types.LongType.get(), table.schema().findType("n"));
      assertEquals(org.apache.iceberg.types.Types.StringType.get(), table.schema().findType("city"));
      assertEquals(org.apache.iceberg.types.Types.DoubleType.get(), table.schema().findType("geo.lat"));
      Map<Long, List<Object>> rows = dev.floe.testing.TableRows.byId(table, "id", "n", "city", "geo");
      assertEquals(java.util.Arrays.asList(1L, null, null), rows.get(1L));
      assertEquals(java.util.Arrays.asList(2L, "a", null), rows.get(2L));
      Record geo = (Record) rows.get(3L).get(2);
      assertEquals(List.of(3_000_000_000L, 1.5, List.of("x")),
          List.of(rows.get(3L).get(0), geo.getField("lat"), geo.getField("tags")));
      assertEquals(3, rows.size());
      List<Snapshot> snapshots = new ArrayList<>();
      table.snapshots().forEach(snapshots::add);
      assertEquals(2, snapshots.size(), "the evolved run is one commit");
    } finally {
      ((AutoCloseable) catalog).close();
    }
  }

  @Test
  void aFailedRunLeavesNeitherTableNorDataFiles() throws Exception {
    WriteCommandTest.Mixed mixed = WriteCommandTest.Mixed.build();
    Files.write(dir.resolve("mixed.jsonl"), mixed.bytes());
    TestRows.writeSchema(dir);

    // The embedded catalog, given as a --catalog-config file.
    Path wh = dir.resolve("wh").toAbsolutePath();
    Files.createDirectories(wh);
    Files.writeString(dir.resolve("catalog.properties"),
        "type=jdbc\nuri=jdbc:sqlite:" + wh.resolve("catalog.db") + "\nwarehouse=" + wh + "\n");
    CliProcess.Result r =
        CliProcess.run(dir, "write", "--input", "mixed.jsonl", "--schema", "schema.json", "--table", "db.events",
            "--catalog-config", "catalog.properties", "--batch-rows", "2");
    assertEquals(FloeCli.EXIT_FAILED, r.exitCode());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.errLines().getFirst().startsWith("floe write: mixed.jsonl line " + mixed.bad().getFirst().line() + ": "), r.err());

    Catalog catalog = Catalogs.embedded(dir.resolve("wh"));
    try {
      assertFalse(catalog.tableExists(EVENTS), "the create commits with the data, or not at all");
    } finally {
      ((AutoCloseable) catalog).close();
    }
    try (Stream<Path> files = Files.walk(dir.resolve("wh"))) {
      assertEquals(List.of(), files.filter(p -> p.toString().endsWith(".parquet")).toList(), "aborted files are deleted");
    }
  }

  private static long sum(JsonNode array, String field) {
    long total = 0;
    for (JsonNode n : array) {
      total += n.get(field).asLong();
    }
    return total;
  }

  /** Differences between the expected rows and the table's rows, both ordered by id. */
  static List<String> compareRows(List<List<Object>> expected, Table table) throws Exception {
    List<List<Object>> actual = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(r -> actual.add(TestRows.fromRecord(r)));
    }
    Comparator<List<Object>> byId = Comparator.comparing(r -> (Long) r.get(0));
    List<List<Object>> want = expected.stream().sorted(byId).toList();
    List<List<Object>> got = actual.stream().sorted(byId).toList();
    List<String> differences = new ArrayList<>();
    if (want.size() != got.size()) {
      differences.add("rows: expected " + want.size() + ", got " + got.size());
    }
    for (int i = 0; i < Math.min(want.size(), got.size()) && differences.size() < 5; i++) {
      if (!want.get(i).equals(got.get(i))) {
        differences.add("expected " + want.get(i) + " got " + got.get(i));
      }
    }
    return differences;
  }

  private static List<Record> readFile(Table table, DataFile file) throws Exception {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        Parquet.read(table.io().newInputFile(file.location()))
            .project(table.schema())
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(table.schema(), fileSchema))
            .build()) {
      records.forEach(r -> rows.add(r.copy()));
    }
    return rows;
  }
}
