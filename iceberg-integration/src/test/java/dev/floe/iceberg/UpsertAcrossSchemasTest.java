package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * One upsert commit written by a chain of writers, one per schema, as a commit cycle that schema
 * evolution moves to new schemas writes it ({@link NativeFileWriterFactory#newUpsertTaskWriterAfter}):
 * a key a writer before wrote or deleted is replaced or stays deleted, also after the identifier
 * column was widened from int to long. Read back by Iceberg's generic reader against a model.
 */
class UpsertAcrossSchemasTest extends EmbeddedCatalogTest {
  private static final Schema START = new Schema(
      List.of(
          Types.NestedField.required(1, "id", Types.IntegerType.get()),
          Types.NestedField.optional(2, "v", Types.StringType.get())),
      Set.of(1));

  /** id -> [v, w, x] as the model expects them (a column a row's schema lacked is null). */
  private final Map<Long, List<Object>> live = new TreeMap<>();

  private static String row(long id, String v, String w, String x) {
    StringBuilder json = new StringBuilder("{\"id\":" + id + ",\"v\":\"" + v + "\"");
    if (w != null) {
      json.append(",\"w\":\"").append(w).append('"');
    }
    if (x != null) {
      json.append(",\"x\":\"").append(x).append('"');
    }
    return json.append('}').toString();
  }

  /** Upserts ids {@code from..to} (every {@code step}-th) through {@code writer}, and into the model. */
  private void upsert(NativeTaskWriter writer, NativeFileWriterFactory factory, String tag, long from, long to, long step,
      boolean hasW, boolean hasX) {
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch()) {
      for (long id = from; id <= to; id += step) {
        String w = hasW ? tag + "w" + id : null;
        String x = hasX ? tag + "x" + id : null;
        batch.add(row(id, tag + id, w, x).getBytes(StandardCharsets.UTF_8));
        live.put(id, Arrays.asList(tag + id, w, x));
      }
      writer.write(decoder, batch, BadRecordPolicy.FAIL);
    }
  }

  /** Deletes ids {@code from..to} (every {@code step}-th) by key through {@code writer}, and from the model. */
  private void delete(NativeTaskWriter writer, NativeFileWriterFactory factory, long from, long to, long step) {
    try (VectorSchemaRoot keys = VectorSchemaRoot.create(factory.equalityDeleteArrowSchema(), allocator)) {
      keys.allocateNew();
      int n = 0;
      for (long id = from; id <= to; id += step) {
        switch (keys.getVector("id")) {
          case IntVector ints -> ints.setSafe(n, Math.toIntExact(id));
          case BigIntVector longs -> longs.setSafe(n, id);
          default -> throw new AssertionError(keys.getVector("id").getField());
        }
        n++;
        live.remove(id);
      }
      keys.setRowCount(n);
      writer.deleteKeys(keys);
    }
  }

  private Map<Long, List<Object>> read(Table table) throws IOException {
    Map<Long, List<Object>> rows = new TreeMap<>();
    for (Record r : readAll(table.name().substring(table.name().lastIndexOf('.') + 1))) {
      List<Object> previous = rows.put(((Number) r.getField("id")).longValue(),
          Arrays.asList(r.getField("v"), r.getField("w"), r.getField("x")));
      assertNull(previous, "two live rows for id " + r.getField("id"));
    }
    return rows;
  }

  /**
   * A commit before, then one commit by three writers: the first for the table's start schema, the
   * second after column w was added and id widened to long, the third after column x was added.
   * Each later writer updates and deletes keys the writers before it wrote, deleted, or never met.
   */
  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void aCommitContinuedAcrossSchemasKeepsOneRowPerKey(int formatVersion) throws IOException {
    String name = "across_v" + formatVersion;
    Table table = catalog.createTable(TableIdentifier.of("db", name), START,
        PartitionSpec.builderFor(START).bucket("id", 4).build(),
        Map.of(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion)));

    NativeFileWriterFactory first = NativeFileWriterFactory.forTable(table, allocator);
    NativeTaskWriter before = first.newUpsertTaskWriter();
    upsert(before, first, "a", 0, 299, 1, false, false);
    Commits.rowDelta(table, before.complete(), Map.of());

    NativeTaskWriter one = first.newUpsertTaskWriter();
    upsert(one, first, "b", 200, 499, 1, false, false); // updates 200..299 of the commit before
    upsert(one, first, "c", 400, 449, 1, false, false); // and some of its own rows again
    delete(one, first, 450, 469, 1);

    table.updateSchema().addColumn("w", Types.StringType.get()).updateColumn("id", Types.LongType.get()).commit();
    NativeFileWriterFactory second = NativeFileWriterFactory.forTable(table, allocator);
    NativeTaskWriter two = second.newUpsertTaskWriterAfter(one);
    upsert(two, second, "d", 300, 499, 2, true, false); // rows the first writer wrote
    upsert(two, second, "e", 450, 459, 1, true, false); // keys it deleted: live again
    upsert(two, second, "f", 0, 49, 1, true, false); // keys only the commit before wrote
    upsert(two, second, "g", 3_000_000_000L, 3_000_000_009L, 1, true, false); // beyond int
    delete(two, second, 301, 349, 2); // rows the first writer wrote and this one did not

    table.updateSchema().addColumn("x", Types.StringType.get()).commit();
    NativeFileWriterFactory third = NativeFileWriterFactory.forTable(table, allocator);
    NativeTaskWriter three = third.newUpsertTaskWriterAfter(two);
    upsert(three, third, "h", 400, 499, 3, true, true); // rows of both writers before
    upsert(three, third, "i", 3_000_000_000L, 3_000_000_004L, 1, true, true);
    delete(three, third, 460, 469, 1); // deleted by the first writer, some written again just above

    WriteResult.Builder all = WriteResult.builder();
    for (NativeTaskWriter writer : List.of(one, two, three)) {
      all.add(writer.complete());
    }
    Commits.rowDelta(table, all.build(), Map.of());

    assertEquals(live, read(table));
  }

  /**
   * The table's key columns are reordered between two writers of one commit (an {@code ALTER TABLE}
   * while the cycle runs): keys still match by field, so an update after the move leaves one row.
   * A change of the identifier fields themselves cannot continue the commit, and says so.
   */
  @Test
  void keysMatchAfterTheKeyColumnsAreReorderedAndAChangedKeyIsRefused() throws IOException {
    Schema twoKeys = new Schema(
        List.of(
            Types.NestedField.required(1, "a", Types.IntegerType.get()),
            Types.NestedField.required(2, "b", Types.StringType.get()),
            Types.NestedField.optional(3, "v", Types.StringType.get())),
        Set.of(1, 2));
    Table table = catalog.createTable(TableIdentifier.of("db", "reordered"), twoKeys,
        PartitionSpec.builderFor(twoKeys).bucket("a", 2).build(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    NativeFileWriterFactory first = NativeFileWriterFactory.forTable(table, allocator);
    NativeTaskWriter one = first.newUpsertTaskWriter();
    writeRows(one, first, "{\"a\":1,\"b\":\"x\",\"v\":\"one\"}", "{\"a\":2,\"b\":\"y\",\"v\":\"one\"}");

    table.updateSchema().moveFirst("b").commit();
    NativeFileWriterFactory reordered = NativeFileWriterFactory.forTable(table, allocator);
    NativeTaskWriter two = reordered.newUpsertTaskWriterAfter(one);
    writeRows(two, reordered, "{\"a\":1,\"b\":\"x\",\"v\":\"two\"}");
    assertThrows(IllegalStateException.class, () -> writeRows(one, first, "{\"a\":3,\"b\":\"z\"}"),
        "a writer whose commit went on in a later one takes no more rows");
    WriteResult.Builder all = WriteResult.builder();
    all.add(one.complete());
    all.add(two.complete());
    Commits.rowDelta(table, all.build(), Map.of());
    Map<List<Object>, Object> rows = new java.util.HashMap<>();
    for (Record r : readAll("reordered")) {
      assertNull(rows.put(List.of(r.getField("a"), r.getField("b")), r.getField("v")), "two live rows for " + r);
    }
    assertEquals(Map.of(List.of(1, "x"), "two", List.of(2, "y"), "one"), rows);

    table.updateSchema().setIdentifierFields("a").commit();
    NativeTaskWriter three = reordered.newUpsertTaskWriter();
    IllegalStateException refused = assertThrows(IllegalStateException.class,
        () -> NativeFileWriterFactory.forTable(table, allocator).newUpsertTaskWriterAfter(three));
    assertTrue(refused.getMessage().contains("identifier fields changed"), refused.getMessage());
    three.abort();
  }

  private void writeRows(NativeTaskWriter writer, NativeFileWriterFactory factory, String... rows) {
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch()) {
      for (String row : rows) {
        batch.add(row.getBytes(StandardCharsets.UTF_8));
      }
      writer.write(decoder, batch, BadRecordPolicy.FAIL);
    }
  }

  @Test
  void onlyAnUpsertWriterContinuesAnotherUpsertWritersCommit() {
    Table table = catalog.createTable(TableIdentifier.of("db", "appends"), START, PartitionSpec.unpartitioned(),
        Map.of(TableProperties.FORMAT_VERSION, "2"));
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeTaskWriter appends = factory.newTaskWriter()) {
      assertThrows(IllegalArgumentException.class, () -> factory.newUpsertTaskWriterAfter(appends));
    }
    try (NativeTaskWriter delta = factory.newDeltaTaskWriter()) {
      assertThrows(IllegalArgumentException.class, () -> factory.newUpsertTaskWriterAfter(delta));
    }
    // A completed writer forgot its keys: a later one would leave its rows live (helper-42)
    NativeTaskWriter completed = factory.newUpsertTaskWriter();
    completed.complete();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> factory.newUpsertTaskWriterAfter(completed));
    assertTrue(e.getMessage().contains("completed or aborted"), e.getMessage());
  }
}
