package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Upserts by identifier fields: after several commits with keys repeated across and within
 * commits, readers see exactly the latest row per key -- the same table Iceberg Java's equality
 * delta writer produces from the same input; on format v3, with deletion vectors.
 */
class UpsertTest extends EmbeddedCatalogTest {
  static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.required(2, "region", Types.StringType.get()),
              Types.NestedField.optional(3, "price", Types.DecimalType.of(10, 2)),
              Types.NestedField.optional(4, "note", Types.StringType.get()),
              Types.NestedField.optional(5, "ts", Types.TimestampType.withZone())),
          Set.of(1, 2));

  private Table table(String name, PartitionSpec spec) {
    return table(name, spec, 2);
  }

  private Table table(String name, PartitionSpec spec, int formatVersion) {
    return catalog.createTable(
        TableIdentifier.of("db", name), SCHEMA, spec,
        Map.of(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion)));
  }

  /** Rows whose (id, region) keys repeat: drawn from a small key space. */
  private static List<Record> rounds(long seed, int rows, int keySpace) {
    List<Record> out = new RandomRows(seed).records(SCHEMA, rows);
    Random random = new Random(seed);
    for (Record r : out) {
      int key = random.nextInt(keySpace);
      r.setField("id", (long) key);
      r.setField("region", key % 3 == 0 ? "東京" : "eu-" + (key % 5));
    }
    return out;
  }

  private WriteResult upsertWithFloe(Table table, List<Record> rows, int batchSize) {
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer = factory.newUpsertTaskWriter()) {
      for (int start = 0; start < rows.size(); start += batchSize) {
        batch.clear();
        for (Record r : rows.subList(start, Math.min(rows.size(), start + batchSize))) {
          batch.add(RandomRows.toJson(r).getBytes(StandardCharsets.UTF_8));
        }
        writer.write(decoder, batch, BadRecordPolicy.FAIL);
      }
      WriteResult result = writer.complete();
      Commits.rowDelta(table, result, Map.of());
      return result;
    }
  }

  private static void upsertWithIceberg(Table table, List<Record> rows) throws IOException {
    IcebergJavaUpsertWriter writer = new IcebergJavaUpsertWriter(table, 1);
    for (Record r : rows) {
      writer.write(r);
    }
    Commits.rowDelta(table, writer.complete(), Map.of());
  }

  private static Map<List<Object>, Record> latestPerKey(List<List<Record>> commits) {
    Map<List<Object>, Record> latest = new LinkedHashMap<>();
    commits.forEach(rows -> rows.forEach(r -> latest.put(List.of(r.getField("id"), r.getField("region")), r)));
    return latest;
  }

  private static Map<List<Object>, List<Object>> byKey(List<Record> rows) {
    Map<List<Object>, List<Object>> out = new HashMap<>();
    for (Record r : rows) {
      List<Object> values = new ArrayList<>();
      // Only the table's columns: a read that applies deletes may carry _pos after them.
      for (int i = 0; i < SCHEMA.columns().size(); i++) {
        values.add(r.get(i));
      }
      List<Object> previous = out.put(List.of(r.getField("id"), r.getField("region")), values);
      assertEquals(null, previous, "two live rows for key " + r.getField("id"));
    }
    return out;
  }

  /** Equal maps, or a failure that lists the first few keys that differ. */
  private static void assertSameRows(
      Map<List<Object>, List<Object>> expected, Map<List<Object>, List<Object>> actual, String where) {
    List<String> differences = new ArrayList<>();
    Set<List<Object>> keys = new java.util.HashSet<>(expected.keySet());
    keys.addAll(actual.keySet());
    for (List<Object> key : keys) {
      if (!java.util.Objects.equals(expected.get(key), actual.get(key))) {
        differences.add(key + ": expected " + expected.get(key) + " but was " + actual.get(key));
      }
    }
    assertEquals(
        List.of(), differences.subList(0, Math.min(5, differences.size())), where + ", " + differences.size() + " keys differ");
  }

  @Test
  void readersSeeTheLatestRowPerKeyLikeIcebergJava() throws IOException {
    for (PartitionSpec spec :
        List.of(PartitionSpec.unpartitioned(), PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build())) {
      String suffix = spec.isUnpartitioned() ? "flat" : "bucketed";
      Table floe = table("floe_" + suffix, spec);
      Table java = table("java_" + suffix, spec);
      List<List<Record>> commits = List.of(rounds(1, 800, 500), rounds(2, 1500, 900), rounds(3, 700, 300));
      for (List<Record> rows : commits) {
        upsertWithFloe(floe, rows, 256);
        upsertWithIceberg(java, rows);
      }
      Map<List<Object>, List<Object>> expected = byKey(new ArrayList<>(latestPerKey(commits).values()));
      assertSameRows(expected, byKey(readAll("floe_" + suffix)), spec.toString());
      assertSameRows(byKey(readAll("java_" + suffix)), byKey(readAll("floe_" + suffix)), spec.toString());
    }
  }

  @Test
  void repeatsWithinACommitBecomePositionDeletesAndNewKeysEqualityDeletes() {
    Table table = table("kinds", PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build());
    List<Record> rows = rounds(4, 1000, 400);
    WriteResult result = upsertWithFloe(table, rows, 100);
    long distinctKeys = latestPerKey(List.of(rows)).size();
    long equality = 0;
    long positions = 0;
    for (DeleteFile f : result.deleteFiles()) {
      if (f.content() == FileContent.EQUALITY_DELETES) {
        equality += f.recordCount();
        assertEquals(List.of(1, 2), f.equalityFieldIds());
      } else {
        positions += f.recordCount();
      }
    }
    assertEquals(distinctKeys, equality, "one equality delete per key seen");
    assertEquals(rows.size() - distinctKeys, positions, "one position delete per repeat");
    assertTrue(result.referencedDataFiles().length > 0);
  }

  /**
   * Delete files take the {@code write.delete.parquet.*} properties and data files the {@code
   * write.parquet.*} ones, as Iceberg Java's writers do: here a different codec and page row limit
   * for deletes, and no dictionaries anywhere.
   */
  @Test
  void dataAndDeleteFilesFollowTheirOwnParquetPropertiesLikeIcebergJava() throws IOException {
    Map<String, String> properties =
        Map.of(
            TableProperties.FORMAT_VERSION, "2",
            TableProperties.PARQUET_COMPRESSION, "zstd",
            TableProperties.PARQUET_PAGE_ROW_LIMIT, "300",
            TableProperties.DELETE_PARQUET_COMPRESSION, "snappy",
            TableProperties.DELETE_PARQUET_PAGE_ROW_LIMIT, "200",
            WriterSettings.ENABLE_DICTIONARY, "false");
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket("id", 2).build();
    Table floe = catalog.createTable(TableIdentifier.of("db", "props_floe"), SCHEMA, spec, properties);
    Table java = catalog.createTable(TableIdentifier.of("db", "props_java"), SCHEMA, spec, properties);
    List<Record> rows = rounds(5, 3000, 1200);
    upsertWithFloe(floe, rows, 1000);
    upsertWithIceberg(java, rows);

    Map<FileContent, FileLayout> ours = layouts(floe);
    Map<FileContent, FileLayout> theirs = layouts(java);
    assertEquals(Set.of(FileContent.DATA, FileContent.EQUALITY_DELETES, FileContent.POSITION_DELETES), ours.keySet());
    for (FileContent content : ours.keySet()) {
      FileLayout layout = ours.get(content);
      String codec = content == FileContent.DATA ? "ZSTD" : "SNAPPY";
      assertEquals(Set.of(codec), layout.codecs(), content.toString());
      assertEquals(theirs.get(content).codecs(), layout.codecs(), content + " codecs, as Iceberg Java's");
      assertEquals(false, layout.dictionaries(), content + ": parquet.enable.dictionary=false");
      assertEquals(false, theirs.get(content).dictionaries(), content + " (Iceberg Java)");
      // The page row limit is best effort natively: a page ends at the first mini-batch boundary
      // past it, so it stays below two limits.
      int limit = content == FileContent.DATA ? 300 : 200;
      assertTrue(layout.maxPageRows() < 2 * limit, content + ": " + layout);
      assertTrue(theirs.get(content).maxPageRows() <= limit, content + " (Iceberg Java): " + theirs.get(content));
      assertTrue(layout.mostPagesInAChunk() > 1, content + " columns are split into pages: " + layout);
    }
  }

  /** What the Parquet files of one content type look like: codecs, dictionary pages, page rows. */
  private record FileLayout(Set<String> codecs, boolean dictionaries, long maxPageRows, int mostPagesInAChunk) {}

  private static Map<FileContent, FileLayout> layouts(Table table) throws IOException {
    List<org.apache.iceberg.ContentFile<?>> files = new ArrayList<>();
    table.currentSnapshot().addedDataFiles(table.io()).forEach(files::add);
    table.currentSnapshot().addedDeleteFiles(table.io()).forEach(files::add);
    Map<FileContent, FileLayout> out = new java.util.EnumMap<>(FileContent.class);
    for (org.apache.iceberg.ContentFile<?> file : files) {
      assertEquals(FileFormat.PARQUET, file.format());
      Set<String> codecs = new java.util.TreeSet<>();
      boolean dictionaries = false;
      long maxPageRows = 0;
      int mostPages = 0;
      String location = file.location().replaceFirst("^file:", "");
      try (var reader = org.apache.parquet.hadoop.ParquetFileReader.open(
          new org.apache.parquet.io.LocalInputFile(java.nio.file.Path.of(location)))) {
        for (var rowGroup : reader.getFooter().getBlocks()) {
          for (var column : rowGroup.getColumns()) {
            codecs.add(column.getCodec().name());
            dictionaries |= column.hasDictionaryPage();
            var offsets = reader.readOffsetIndex(column);
            for (int page = 0; page < offsets.getPageCount(); page++) {
              long rows = offsets.getLastRowIndex(page, rowGroup.getRowCount()) - offsets.getFirstRowIndex(page) + 1;
              maxPageRows = Math.max(maxPageRows, rows);
            }
            mostPages = Math.max(mostPages, offsets.getPageCount());
          }
        }
      }
      FileLayout seen = new FileLayout(codecs, dictionaries, maxPageRows, mostPages);
      out.merge(
          file.content(),
          seen,
          (a, b) -> {
            Set<String> both = new java.util.TreeSet<>(a.codecs());
            both.addAll(b.codecs());
            return new FileLayout(
                both,
                a.dictionaries() || b.dictionaries(),
                Math.max(a.maxPageRows(), b.maxPageRows()),
                Math.max(a.mostPagesInAChunk(), b.mostPagesInAChunk()));
          });
    }
    return out;
  }

  @Test
  void formatV3TablesGetDeletionVectorsAndTheLatestRowPerKey() throws IOException {
    for (PartitionSpec spec :
        List.of(PartitionSpec.unpartitioned(), PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build())) {
      String name = "v3_" + (spec.isUnpartitioned() ? "flat" : "bucketed");
      Table table = table(name, spec, 3);
      List<List<Record>> commits = List.of(rounds(5, 800, 500), rounds(6, 1500, 900), rounds(7, 700, 300));
      for (List<Record> rows : commits) {
        WriteResult result = upsertWithFloe(table, rows, 256);
        long repeats = rows.size() - latestPerKey(List.of(rows)).size();
        long deletedPositions = 0;
        Set<String> puffinFiles = new java.util.HashSet<>();
        for (DeleteFile f : result.deleteFiles()) {
          if (f.content() == FileContent.POSITION_DELETES) {
            // A deletion vector: a blob of one Puffin file, for exactly one data file.
            assertEquals(FileFormat.PUFFIN, f.format(), f.location());
            assertNotNull(f.referencedDataFile(), f.location());
            assertNotNull(f.contentOffset(), f.location());
            assertNotNull(f.contentSizeInBytes(), f.location());
            assertEquals(spec.specId(), f.specId());
            deletedPositions += f.recordCount();
            puffinFiles.add(f.location());
          } else {
            assertEquals(FileFormat.PARQUET, f.format(), "equality deletes stay Parquet");
          }
        }
        assertEquals(repeats, deletedPositions, "one deleted position per repeat within the commit");
        assertEquals(repeats > 0 ? 1 : 0, puffinFiles.size(), "all of a commit's vectors in one Puffin file");
        assertTrue(puffinFiles.stream().allMatch(l -> l.endsWith(".puffin")), puffinFiles.toString());
      }
      Map<List<Object>, List<Object>> expected = byKey(new ArrayList<>(latestPerKey(commits).values()));
      assertSameRows(expected, byKey(readAll(name)), spec.toString());
    }
  }

  /**
   * Deleting by key removes a key's row of an earlier commit (equality delete) and its row written
   * by this writer (position delete); a key deleted and then written again is live; a key that
   * never existed is a harmless delete. On v2 and v3, partitioned and not.
   */
  @Test
  void deletesByKeyRemoveRowsOfEarlierCommitsAndOfThisWriter() throws IOException {
    int version = 2;
    for (PartitionSpec spec :
        List.of(PartitionSpec.unpartitioned(), PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build())) {
      String name = "deletes_v" + version + (spec.isUnpartitioned() ? "_flat" : "_bucketed");
      Table table = table(name, spec, version++);
      List<Record> first = rounds(11, 600, 300);
      upsertWithFloe(table, first, 128);
      Map<List<Object>, Record> live = latestPerKey(List.of(first));

      List<Record> second = rounds(12, 400, 600);
      List<Record> deleted = rounds(13, 150, 600); // keys of both commits and keys never written
      List<Record> again = rounds(14, 100, 600);
      Commits.rowDelta(table, upsertDeleteUpsert(table, second, deleted, again), Map.of());
      second.forEach(r -> live.put(List.of(r.getField("id"), r.getField("region")), r));
      deleted.forEach(r -> live.remove(List.of(r.getField("id"), r.getField("region"))));
      again.forEach(r -> live.put(List.of(r.getField("id"), r.getField("region")), r));
      assertSameRows(byKey(new ArrayList<>(live.values())), byKey(readAll(name)), name);
    }
  }

  /**
   * After partition evolution the table's older specs still hold live rows, and an equality delete
   * reaches only files of its own spec (or all files, from an unpartitioned spec): each new key is
   * deleted in every older spec with live files too. Unpartitioned, then bucket[4](id), then
   * identity(region); upserts and deletes by key in each; one live row per key at the end.
   */
  @Test
  void upsertsAfterPartitionEvolutionReachRowsInFilesOfOlderSpecs() throws IOException {
    for (int version : List.of(2, 3)) {
      String name = "evolved_v" + version;
      Table table = table(name, PartitionSpec.unpartitioned(), version);
      List<Record> first = rounds(21, 600, 300);
      upsertWithFloe(table, first, 128);
      table.updateSpec().addField(Expressions.bucket("id", 4)).commit();
      List<Record> second = rounds(22, 500, 300);
      upsertWithFloe(table, second, 128);
      table.updateSpec().removeField(Expressions.bucket("id", 4)).addField("region").commit();
      List<Record> third = rounds(23, 400, 300);
      List<Record> deleted = rounds(24, 100, 300);
      WriteResult result = upsertDeleteUpsert(table, third, deleted, List.of());
      Set<Integer> deleteSpecs = new java.util.TreeSet<>();
      for (DeleteFile file : result.deleteFiles()) {
        if (file.content() == FileContent.EQUALITY_DELETES) {
          deleteSpecs.add(file.specId());
        }
      }
      assertEquals(Set.of(0, 1, 2), deleteSpecs, "equality deletes in the current spec and both older ones");
      Commits.rowDelta(table, result, Map.of());
      Map<List<Object>, Record> live = latestPerKey(List.of(first, second, third));
      deleted.forEach(r -> live.remove(List.of(r.getField("id"), r.getField("region"))));
      assertSameRows(byKey(new ArrayList<>(live.values())), byKey(readAll(name)), name);
    }
  }

  /**
   * Writers made after a spec change but before a cycle of the old spec landed (helper-64's race):
   * their upserts miss that data, which the commit's check finds, and the factory is not current
   * for the next cycle. A factory a cycle moves on to mid-way deletes in no more specs than the
   * cycle's first (helper-66: keys deleted by one reach and others by another passed the check).
   */
  @Test
  void upsertsMadeBeforeDataLandedInAnOlderSpecAreFoundShort() throws IOException {
    Table table = table("raced", PartitionSpec.unpartitioned(), 2);
    NativeFileWriterFactory unpartitioned = NativeFileWriterFactory.forTable(table, allocator);
    table.updateSpec().addField(Expressions.bucket("id", 4)).commit();
    NativeFileWriterFactory bucketed = NativeFileWriterFactory.forTable(table, allocator); // no older data yet
    Commits.rowDelta(table, written(unpartitioned, rounds(31, 200, 50)), Map.of()); // lands in spec 0 now
    table.refresh();
    assertTrue(bucketed.isCurrentFor(table), "schema, spec and properties are the same");
    assertFalse(bucketed.deletesInOlderSpecsOf(table), "but spec 0 holds data its upserts do not delete in");

    WriteResult shortOfSpec0 = written(bucketed, rounds(32, 200, 50));
    TableMetadata base = ((HasTableOperations) table).operations().current();
    assertEquals(Set.of(0), EqualityDeleteReach.specsMissed(base, table.io(), shortOfSpec0));
    NativeFileWriterFactory movedOn = NativeFileWriterFactory.forTable(table, allocator).deletingNoWiderThan(bucketed);
    assertEquals(Set.of(0), EqualityDeleteReach.specsMissed(base, table.io(), written(movedOn, rounds(33, 100, 50))),
        "mid-cycle, the reach stays the cycle's");
    assertFalse(movedOn.deletesInOlderSpecsOf(table), "and the next cycle gets a factory of its own");
    NativeFileWriterFactory next = NativeFileWriterFactory.forTable(table, allocator);
    assertEquals(Set.of(), EqualityDeleteReach.specsMissed(base, table.io(), written(next, rounds(34, 200, 50))));
  }

  /**
   * A cycle begun in spec 0 goes on after a spec change (a schema move mid-cycle) while the cycle
   * before, also spec 0, is still landing: the new factory deletes in spec 0 too, so the keys it
   * writes leave no row there (helper-67: 40 of 50 keys twice when it took the table's view).
   */
  @Test
  void aCycleThatMovesToANewSpecMidWayStillDeletesInTheSpecItBeganIn() throws IOException {
    Table table = table("moved", PartitionSpec.builderFor(SCHEMA).bucket("id", 2).build(), 2);
    NativeFileWriterFactory before = NativeFileWriterFactory.forTable(table, allocator);
    List<Record> landingLate = rounds(41, 200, 50);
    WriteResult cycleBefore = written(before, landingLate);
    table.updateSpec().addField("region").commit();
    NativeFileWriterFactory movedOn = NativeFileWriterFactory.forTable(table, allocator).deletingNoWiderThan(before);
    Commits.rowDelta(table, cycleBefore, Map.of()); // lands after the move
    List<Record> after = rounds(42, 200, 50);
    Commits.rowDelta(table, written(movedOn, after), Map.of());
    assertSameRows(byKey(new ArrayList<>(latestPerKey(List.of(landingLate, after)).values())), byKey(readAll("moved")),
        "moved");
  }

  /** {@code rows} upserted by a writer of {@code factory}, not committed. */
  private WriteResult written(NativeFileWriterFactory factory, List<Record> rows) {
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer = factory.newUpsertTaskWriter()) {
      writeJson(writer, decoder, batch, rows);
      return writer.complete();
    }
  }

  /** A table upgraded to format v3 while a writer follows it: the next factory writes deletion vectors. */
  @Test
  void anUpgradeToV3IsAChangeAFollowingWriterSees() throws IOException {
    Table table = table("upgraded", PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build(), 2);
    NativeFileWriterFactory v2 = NativeFileWriterFactory.forTable(table, allocator);
    assertTrue(v2.isCurrentFor(table));
    List<Record> first = rounds(26, 300, 100);
    upsertWithFloe(table, first, 64);
    table.updateProperties().set(TableProperties.FORMAT_VERSION, "3").commit();
    assertFalse(v2.isCurrentFor(table), "a v2 factory's position-delete files are refused by a v3 table");
    List<Record> second = rounds(27, 300, 100); // keys repeat within the commit: deletion vectors
    WriteResult result = upsertWithFloe(table, second, 64);
    assertTrue(Arrays.stream(result.deleteFiles()).anyMatch(f -> f.format() == FileFormat.PUFFIN), "deletion vectors");
    assertSameRows(byKey(new ArrayList<>(latestPerKey(List.of(first, second)).values())), byKey(readAll("upgraded")), "upgraded");
  }

  @Test
  void upsertsRefuseAnOlderSpecWithLiveFilesThatTheKeyCannotPlace() {
    Table table = table("appended_by_note", PartitionSpec.builderFor(SCHEMA).identity("note").build());
    NativeFileWriterFactory appends = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(appends.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer = appends.newTaskWriter()) {
      writeJson(writer, decoder, batch, rounds(25, 50, 50));
      Commits.append(table, writer.complete(), Map.of());
    }
    table.updateSpec().removeField("note").addField(Expressions.bucket("id", 4)).commit();
    IllegalArgumentException e = assertThrows(
        IllegalArgumentException.class, () -> NativeFileWriterFactory.forTable(table, allocator).newUpsertTaskWriter());
    assertTrue(e.getMessage().contains("partition spec 0") && e.getMessage().contains("'note'"), e.getMessage());
    // Adapters that choose between appending and writing by key are told so before they start
    String refusal = NativeFileWriterFactory.keyedWritesRefusal(table);
    assertTrue(refusal != null && refusal.contains("'note'") && refusal.contains("older partition spec 0"), refusal);
  }

  /** Which tables can be written by key, and why not, before any writer is made. */
  @Test
  void keyedWritesRefusalNamesWhatStandsInTheWay() {
    assertEquals(null, NativeFileWriterFactory.keyedWritesRefusal(table("keyed", PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build())));
    String v1 = NativeFileWriterFactory.keyedWritesRefusal(table("keyed_v1", PartitionSpec.unpartitioned(), 1));
    assertTrue(v1.contains("format v1"), v1);
    String byNote = NativeFileWriterFactory.keyedWritesRefusal(table("keyed_by_note", PartitionSpec.builderFor(SCHEMA).identity("note").build()));
    assertTrue(byNote.contains("'note'") && byNote.contains("not an identifier field"), byNote);
    Table noKeys = catalog.createTable(TableIdentifier.of("db", "no_keys"), new Schema(SCHEMA.columns()),
        PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    String none = NativeFileWriterFactory.keyedWritesRefusal(noKeys);
    assertTrue(none.contains("no identifier fields"), none);
  }

  /** One upsert writer: {@code rows} upserted, the keys of {@code deleted} deleted, then {@code again} upserted. */
  private WriteResult upsertDeleteUpsert(Table table, List<Record> rows, List<Record> deleted, List<Record> again) {
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer = factory.newUpsertTaskWriter()) {
      writeJson(writer, decoder, batch, rows);
      try (VectorSchemaRoot keys = keyBatch(factory, deleted)) {
        writer.deleteKeys(keys);
      }
      if (!again.isEmpty()) {
        writeJson(writer, decoder, batch, again);
      }
      return writer.complete();
    }
  }

  private static void writeJson(NativeTaskWriter writer, NativeJsonDecoder decoder, MessageBatch batch, List<Record> rows) {
    batch.clear();
    rows.forEach(r -> batch.add(RandomRows.toJson(r).getBytes(StandardCharsets.UTF_8)));
    writer.write(decoder, batch, BadRecordPolicy.FAIL);
  }

  /** The (id, region) keys of {@code rows} as a batch of the table's key schema. */
  private VectorSchemaRoot keyBatch(NativeFileWriterFactory factory, List<Record> rows) {
    VectorSchemaRoot keys = VectorSchemaRoot.create(factory.equalityDeleteArrowSchema(), allocator);
    keys.allocateNew();
    BigIntVector ids = (BigIntVector) keys.getVector("id");
    VarCharVector regions = (VarCharVector) keys.getVector("region");
    for (int i = 0; i < rows.size(); i++) {
      ids.setSafe(i, (Long) rows.get(i).getField("id"));
      regions.setSafe(i, ((String) rows.get(i).getField("region")).getBytes(StandardCharsets.UTF_8));
    }
    keys.setRowCount(rows.size());
    return keys;
  }

  /**
   * Outside upsert mode, as Iceberg's Flink sink writes a changelog into a table with identifier
   * fields: rows are inserted (a key written twice in one commit keeps its last row; rows of
   * earlier commits stay, so a key may have several live rows) and deletes remove a key's rows.
   * Over three commits of interleaved inserts and deletes, the table holds the rows Iceberg Java's
   * equality-delta writer leaves from the same operations (v2) and the rows a model of those
   * semantics predicts (v2, and v3 with deletion vectors; unpartitioned, then bucketed).
   */
  @Test
  void insertsAndDeletesOutsideUpsertModeLeaveTheRowsIcebergJavasDeltaWriterLeaves() throws IOException {
    int version = 2;
    for (PartitionSpec spec :
        List.of(PartitionSpec.unpartitioned(), PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build())) {
      String suffix = "delta_v" + version + (spec.isUnpartitioned() ? "_flat" : "_bucketed");
      Table floe = table("floe_" + suffix, spec, version);
      // The reference writes v2 position deletes only, which v3 refuses: v3 is checked against the model.
      Table java = version++ == 2 ? table("java_" + suffix, spec, 2) : null;
      List<List<Object>> floeRows =
          threeDeltaCommits(floe, java, 20, 4, values -> List.of(values.get(0), values.get(1)), suffix);
      assertTrue(floeRows.size() > byKeyCount(floeRows), suffix + ": some key has rows of two commits");
    }
  }

  /**
   * Outside upsert mode a table may be partitioned by a column that is not an identifier field,
   * as Iceberg's Flink sink writes such a table by key too: deleted rows are given whole, and each
   * deletes its key in its own partition only (a key's rows in other partitions stay, as under
   * Iceberg's writer per partition). Over three commits, the table holds what Iceberg Java's
   * equality-delta writer leaves (v2) and what the model, keyed by key and partition, predicts (v2
   * and v3). A delete by key alone is refused there: a key does not name its partition.
   */
  @Test
  void wholeRowDeletesInATablePartitionedByAnotherColumnLeaveTheRowsIcebergJavaLeaves() throws IOException {
    PartitionSpec byNote = PartitionSpec.builderFor(SCHEMA).bucket("note", 3).build();
    assertEquals(null, NativeFileWriterFactory.deltaWritesRefusal(table("delta_by_note_probe", byNote)));
    for (int version = 2; version <= 3; version++) {
      String suffix = "delta_by_note_v" + version;
      Table floe = table("floe_" + suffix, byNote, version);
      Table java = version == 2 ? table("java_" + suffix, byNote, 2) : null;
      threeDeltaCommits(floe, java, 40, 3, values -> Arrays.asList(values.get(0), values.get(1), noteBucket(values.get(3))),
          suffix);
    }
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table("delta_by_note_keys", byNote), allocator);
    try (NativeTaskWriter writer = factory.newDeltaTaskWriter();
        VectorSchemaRoot keys = keyBatch(factory, rounds(60, 3, 10))) {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> writer.deleteKeys(keys));
      assertTrue(e.getMessage().contains("deleteRows"), e.getMessage());
    }
    IllegalArgumentException upserts = assertThrows(IllegalArgumentException.class, factory::newUpsertTaskWriter);
    assertTrue(upserts.getMessage().contains("'note_bucket'"), upserts.getMessage());
  }

  private static Object noteBucket(Object note) {
    return note == null
        ? null
        : org.apache.iceberg.transforms.Transforms.bucket(3).bind(Types.StringType.get()).apply((String) note);
  }

  /**
   * Three commits of random inserts and deletes (one in {@code deleteOneIn}, from {@code seed})
   * through floe's delta writer into {@code floe} (named {@code floe_<suffix>}), and through
   * Iceberg Java's into {@code java} ({@code java_<suffix>}) unless it is null; the two tables must
   * be equal, and equal to the model where a delete matches rows by {@code matchedBy}.
   *
   * @return floe's rows
   */
  private List<List<Object>> threeDeltaCommits(Table floe, Table java, long seed, int deleteOneIn,
      java.util.function.Function<List<Object>, List<Object>> matchedBy, String suffix) throws IOException {
    List<List<Object>> expected = new ArrayList<>();
    for (int commit = 0; commit < 3; commit++) {
      List<Record> rows = rounds(seed + commit, 900, 250);
      boolean[] deletes = new boolean[rows.size()];
      Random random = new Random(seed + 10 + commit);
      for (int i = 0; i < deletes.length; i++) {
        deletes[i] = random.nextInt(deleteOneIn) == 0;
      }
      Commits.rowDelta(floe, insertAndDeleteWithFloe(floe, rows, deletes), Map.of());
      if (java != null) {
        IcebergJavaUpsertWriter reference = new IcebergJavaUpsertWriter(java, 1);
        for (int i = 0; i < rows.size(); i++) {
          if (deletes[i]) {
            reference.delete(rows.get(i));
          } else {
            reference.insert(rows.get(i));
          }
        }
        Commits.rowDelta(java, reference.complete(), Map.of());
      }
      applyDeltaCommit(expected, rows, deletes, matchedBy);
    }
    List<List<Object>> floeRows = sortedValues(readAll("floe_" + suffix));
    if (java != null) {
      assertSameMultiset(sortedValues(readAll("java_" + suffix)), floeRows, suffix + ", against Iceberg Java");
    }
    assertSameMultiset(expected.stream().sorted(UpsertTest::compareValues).toList(), floeRows, suffix + ", against the model");
    return floeRows;
  }

  /** Writes runs of inserts and of deletes in order through floe's delta writer. */
  private WriteResult insertAndDeleteWithFloe(Table table, List<Record> rows, boolean[] deletes) {
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        NativeTaskWriter writer = factory.newDeltaTaskWriter()) {
      int start = 0;
      while (start < rows.size()) {
        int end = start;
        while (end < rows.size() && deletes[end] == deletes[start]) {
          end++;
        }
        List<Record> run = rows.subList(start, end);
        if (deletes[start] && factory.spec().fields().stream().anyMatch(f -> f.sourceId() > 2)) {
          // partitioned by a column that is not a key: deleted rows are given whole
          batch.clear();
          run.forEach(r -> batch.add(RandomRows.toJson(r).getBytes(StandardCharsets.UTF_8)));
          try (var rowsToDelete = decoder.decode(batch, BadRecordPolicy.FAIL, allocator)) {
            writer.deleteRows(rowsToDelete.root());
          }
        } else if (deletes[start]) {
          try (VectorSchemaRoot keys = keyBatch(factory, run)) {
            writer.deleteKeys(keys);
          }
        } else {
          writeJson(writer, decoder, batch, run);
        }
        start = end;
      }
      return writer.complete();
    }
  }

  /**
   * The model: an insert replaces its key's row inserted earlier in the commit; a delete removes
   * its key's row inserted earlier in the commit if there is one, else every row of the key from
   * earlier commits. {@code keyOf} gives what a row is matched by (the key, or the key and the
   * partition where deletes are per partition).
   */
  private static void applyDeltaCommit(
      List<List<Object>> live, List<Record> rows, boolean[] deletes, java.util.function.Function<List<Object>, List<Object>> keyOf) {
    Map<List<Object>, List<Object>> inserted = new LinkedHashMap<>();
    Set<List<Object>> deletedBefore = new java.util.HashSet<>();
    for (int i = 0; i < rows.size(); i++) {
      List<Object> values = values(rows.get(i));
      List<Object> key = keyOf.apply(values);
      if (!deletes[i]) {
        inserted.put(key, values);
      } else if (inserted.remove(key) == null) {
        deletedBefore.add(key);
      }
    }
    live.removeIf(values -> deletedBefore.contains(keyOf.apply(values)));
    live.addAll(inserted.values());
  }

  private static List<Object> values(Record r) {
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < SCHEMA.columns().size(); i++) {
      values.add(r.get(i));
    }
    return values;
  }

  private static List<List<Object>> sortedValues(List<Record> rows) {
    return rows.stream().map(UpsertTest::values).sorted(UpsertTest::compareValues).toList();
  }

  private static int compareValues(List<Object> a, List<Object> b) {
    return a.toString().compareTo(b.toString());
  }

  /** Equal multisets of rows, or a failure that lists the first few rows only one side has. */
  private static void assertSameMultiset(List<List<Object>> expected, List<List<Object>> actual, String where) {
    Map<String, Integer> counts = new java.util.TreeMap<>();
    expected.forEach(row -> counts.merge(row.toString(), 1, Integer::sum));
    actual.forEach(row -> counts.merge(row.toString(), -1, Integer::sum));
    List<String> differences = counts.entrySet().stream()
        .filter(e -> e.getValue() != 0)
        .map(e -> (e.getValue() > 0 ? "missing " : "extra ") + e.getKey())
        .toList();
    assertEquals(List.of(), differences.subList(0, Math.min(5, differences.size())),
        where + ": " + expected.size() + " rows expected, " + actual.size() + " read, " + differences.size() + " differ");
  }

  private static long byKeyCount(List<List<Object>> rows) {
    return rows.stream().map(values -> List.of(values.get(0), values.get(1))).distinct().count();
  }

  @Test
  void upsertsNeedIdentifierFieldsAndAV2Table() {
    Table v1 =
        catalog.createTable(
            TableIdentifier.of("db", "v1"), SCHEMA, PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "1"));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> NativeFileWriterFactory.forTable(v1, allocator).newUpsertTaskWriter());
    assertTrue(e.getMessage().contains("v2"), e.getMessage());
    Table byNote = table("by_note", PartitionSpec.builderFor(SCHEMA).identity("note").build());
    IllegalArgumentException partitioned =
        assertThrows(
            IllegalArgumentException.class,
            () -> NativeFileWriterFactory.forTable(byNote, allocator).newUpsertTaskWriter());
    assertTrue(partitioned.getMessage().contains("'note'"), partitioned.getMessage());
    Schema nestedKey = new Schema(
        List.of(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "ref", Types.StructType.of(Types.NestedField.required(3, "code", Types.StringType.get())))),
        Set.of(3));
    Table byNestedKey = catalog.createTable(TableIdentifier.of("db", "nested_key"), nestedKey, PartitionSpec.unpartitioned(),
        Map.of(TableProperties.FORMAT_VERSION, "2"));
    IllegalArgumentException nested =
        assertThrows(
            IllegalArgumentException.class,
            () -> NativeFileWriterFactory.forTable(byNestedKey, allocator).newUpsertTaskWriter(),
            "refused when the writer is made (the sinks' start-up check), not at the first row");
    assertTrue(nested.getMessage().contains("'ref.code'"), nested.getMessage());
  }
}
