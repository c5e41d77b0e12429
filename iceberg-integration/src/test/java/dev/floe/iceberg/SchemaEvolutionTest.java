package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.UnknownField;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Schemas evolved from what described decodes report, written and read back through Iceberg. */
class SchemaEvolutionTest extends EmbeddedCatalogTest {
  private static final JsonDecoderConfig DESCRIBING = JsonDecoderConfig.defaults().withDescribeUnknownFields(true);
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "n", Types.IntegerType.get()),
      Types.NestedField.optional(3, "price", Types.DecimalType.of(6, 2)),
      Types.NestedField.optional(4, "point", Types.StructType.of(
          Types.NestedField.optional(5, "x", Types.LongType.get()))),
      Types.NestedField.optional(6, "items", Types.ListType.ofOptional(7, Types.StructType.of(
          Types.NestedField.optional(8, "x", Types.LongType.get())))));

  private Table create(String name) {
    return catalog.createTable(TableIdentifier.of("db", name), SCHEMA, PartitionSpec.unpartitioned(),
        Map.of(TableProperties.FORMAT_VERSION, "2"));
  }

  @Test
  void newFieldsNestedFieldsAndWideValuesLandAfterOneEvolution() throws Exception {
    Table table = create("evolving");
    String[] messages = {
      "{\"id\":1,\"n\":1,\"price\":\"1.50\",\"tag\":\"a\",\"point\":{\"x\":1,\"y\":2.5}}",
      "{\"id\":2,\"n\":3000000000,\"meta\":{\"src\":\"web\",\"tries\":[1,2],\"none\":null},\"items\":[{\"x\":1,\"z\":true}]}",
      "{\"id\":3,\"price\":123456.78,\"flags\":[],\"only_null\":null,\"tag\":7}",
    };
    // A message stops decoding at its first value that does not fit: its later unknown fields
    // show once the schema holds that value. So evolving runs in rounds, as the sink does.
    int rounds = 0;
    while (true) {
      List<UnknownField> report = reportFor(table, messages);
      if (!SchemaEvolution.anythingToEvolve(report)) {
        break;
      }
      assertTrue(SchemaEvolution.evolve(table, report));
      assertFalse(SchemaEvolution.evolve(table, report), "a second time there is nothing left to do");
      rounds++;
    }
    assertEquals(2, rounds, "n's widening hides message 2's new fields until the second round");

    Schema evolved = table.schema();
    assertEquals(Types.LongType.get(), evolved.findType("n"));
    assertEquals(Types.DecimalType.of(8, 2), evolved.findType("price"));
    assertEquals(Types.StringType.get(), evolved.findType("tag"));
    assertEquals(Types.DoubleType.get(), evolved.findType("point.y"));
    assertEquals(Types.BooleanType.get(), evolved.findType("items.element.z"));
    assertEquals(Types.StringType.get(), evolved.findType("meta.src"));
    assertEquals(Types.ListType.class, evolved.findType("meta.tries").getClass());
    assertEquals(Types.LongType.get(), evolved.findType("meta.tries.element"));
    assertEquals(null, evolved.findField("meta.none"), "only nulls: no type to give it yet");
    assertEquals(null, evolved.findField("flags"), "only empty arrays: no type yet");
    assertEquals(null, evolved.findField("only_null"));
    assertTrue(evolved.findField("tag").isOptional());

    NativeFileWriterFactory after = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(after.arrowSchema(), DESCRIBING);
        MessageBatch batch = batchOf(messages);
        NativeTaskWriter writer = after.newTaskWriter()) {
      DecodeStats stats = writer.write(decoder, batch, BadRecordPolicy.DEAD_LETTER);
      assertEquals(1, stats.rejected().size(), "only the string-typed tag's integer does not fit");
      assertTrue(stats.rejected().get(0).reason().contains("'tag'"), stats.rejected().get(0).reason());
      WriteResult files = writer.complete();
      Commits.append(table, files, Map.of());
    }
    Map<Object, Record> rows = new java.util.TreeMap<>();
    for (Record r : readAll("evolving")) {
      rows.put(r.getField("id"), r);
    }
    assertEquals(List.of(1L, 2L), List.copyOf(rows.keySet()));
    Record first = rows.get(1L);
    assertEquals("a", first.getField("tag"));
    assertEquals(new BigDecimal("1.50"), first.getField("price"));
    assertEquals(2.5, ((Record) first.getField("point")).getField("y"));
    Record second = rows.get(2L);
    assertEquals(3_000_000_000L, second.getField("n"));
    Record meta = (Record) second.getField("meta");
    assertEquals("web", meta.getField("src"));
    assertEquals(List.of(1L, 2L), meta.getField("tries"));
    Record item = (Record) ((List<?>) second.getField("items")).get(0);
    assertEquals(true, item.getField("z"));
    assertEquals(1L, item.getField("x"));
  }

  @Test
  void aConcurrentEvolutionIsMergedNotLost() throws Exception {
    Table ours = create("contended");
    Table theirs = catalog.loadTable(TableIdentifier.of("db", "contended"));
    List<UnknownField> ourReport = reportFor(ours, "{\"id\":1,\"a\":1,\"point\":{\"p\":\"x\"}}");
    List<UnknownField> theirReport = reportFor(ours, "{\"id\":1,\"b\":true,\"point\":{\"q\":1.5}}");
    // Between our read of the table and our commit, the other writer commits its fields.
    Table racing = new BaseTable(((HasTableOperations) ours).operations(), ours.name()) {
      private boolean raced;

      @Override
      public void refresh() {
        super.refresh();
        if (!raced) {
          raced = true;
          assertTrue(SchemaEvolution.evolve(theirs, theirReport));
        }
      }
    };
    assertTrue(SchemaEvolution.evolve(racing, ourReport));
    Schema merged = catalog.loadTable(TableIdentifier.of("db", "contended")).schema();
    assertEquals(Types.LongType.get(), merged.findType("a"));
    assertEquals(Types.BooleanType.get(), merged.findType("b"));
    assertEquals(Types.StringType.get(), merged.findType("point.p"));
    assertEquals(Types.DoubleType.get(), merged.findType("point.q"));
  }

  @Test
  void aFieldAnotherWriterTypedDifferentlyIsLeftAsItIs() {
    Table table = create("typed");
    table.updateSchema().addColumn("a", Types.StringType.get()).commit();
    List<UnknownField> report = reportFor(catalog.loadTable(TableIdentifier.of("db", "typed")), "{\"id\":1}");
    assertEquals(List.of(), report);
    List<UnknownField> stale = List.of(new UnknownField("a", List.of("integer"), 1, java.util.OptionalInt.empty(),
        java.util.Optional.of(new dev.floe.arrow.ValueShape.Scalar("integer")), java.util.OptionalInt.empty(),
        java.util.Optional.empty(), java.util.Optional.empty()));
    assertFalse(SchemaEvolution.evolve(table, stale));
    assertEquals(Types.StringType.get(), table.schema().findType("a"));
  }

  /**
   * Keys that hold a "." (common in log and tracing JSON: {@code http.method}) are columns of that
   * name, at the top level and in a struct, and their values land. A key that would name a field
   * twice ({@code "a.b"} next to {@code "a": {"b": ..}}), or differ from a column only in case, is
   * left out with a warning instead of failing every evolution of the table.
   */
  @Test
  void keysHoldingADotAreColumnsOfThatName() throws Exception {
    Table table = create("dotted");
    String[] messages = {
      "{\"id\":1,\"http.method\":\"GET\",\"point\":{\"x\":1,\"k8s.pod\":\"p-1\",\"rpc.method\":\"Get\"}}",
      "{\"id\":2,\"point\":{\"x\":2,\"y\":7},\"m\":{\"a.b\":1,\"a\":{\"b\":2}},\"ID\":5}",
    };
    List<UnknownField> report = reportFor(table, messages);
    assertTrue(SchemaEvolution.evolve(table, report));
    assertFalse(SchemaEvolution.evolve(table, reportFor(table, messages)), "nothing left to do");

    Types.StructType top = table.schema().asStruct();
    assertEquals(Types.StringType.get(), top.field("http.method").type());
    Types.StructType point = top.field("point").type().asStructType();
    assertEquals(Types.StringType.get(), point.field("k8s.pod").type());
    assertEquals(Types.StringType.get(), point.field("rpc.method").type());
    assertEquals(Types.LongType.get(), point.field("y").type(), "a key without a dot as before");
    Types.StructType m = top.field("m").type().asStructType();
    assertEquals(null, m.field("a.b"), "would be the second field named m.a.b");
    assertEquals(Types.LongType.get(), m.field("a").type().asStructType().field("b").type());
    assertEquals(null, top.field("ID"), "differs from id only in case");

    NativeFileWriterFactory after = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(after.arrowSchema(), DESCRIBING);
        MessageBatch batch = batchOf(messages);
        NativeTaskWriter writer = after.newTaskWriter()) {
      DecodeStats stats = writer.write(decoder, batch, BadRecordPolicy.DEAD_LETTER);
      assertEquals(List.of(), stats.rejected());
      Commits.append(table, writer.complete(), Map.of());
    }
    Map<Object, Record> rows = new java.util.TreeMap<>();
    for (Record r : readAll("dotted")) {
      rows.put(r.getField("id"), r);
    }
    Record first = rows.get(1L);
    assertEquals("GET", first.getField("http.method"));
    assertEquals("p-1", ((Record) first.getField("point")).getField("k8s.pod"));
    assertEquals("Get", ((Record) first.getField("point")).getField("rpc.method"));
    Record second = (Record) rows.get(2L).getField("m");
    assertEquals(2L, ((Record) second.getField("a")).getField("b"));
  }

  /**
   * New keys that differ only in case, in one batch: the first is added, the other left out, at
   * the top level and in a new struct. Before, both were added, and case-insensitive readers
   * (Spark's default) failed on the table: "Foo and foo collide" (found in review).
   */
  /**
   * Keys no column should be named by (helper-80): one holding a NUL, which the Arrow C Data
   * Interface cuts there (a column "k\0" made every later write of its table fail), or another
   * control character, or one longer than 1024 characters. They are not added, at the top level or
   * inside a new struct, and the other new keys are.
   */
  @Test
  void keysWithControlCharactersOrThousandsOfCharactersAddNoColumn() throws Exception {
    Table table = create("unfit");
    String longName = "k".repeat(SchemaEvolution.LONGEST_NAME + 1);
    String[] messages = {
      "{\"id\":1,\"n\\u0000x\":1,\"esc\\u001b[31m\":2,\"" + longName + "\":3,\"ok\":4,"
          + "\"s\":{\"in\\u0000ner\":5,\"fine\":6}}",
    };
    assertTrue(SchemaEvolution.evolve(table, reportFor(table, messages)));
    Types.StructType top = table.schema().asStruct();
    List<String> added = top.fields().stream().map(Types.NestedField::name)
        .filter(name -> SCHEMA.findField(name) == null).toList();
    assertEquals(List.of("ok", "s"), added);
    assertEquals(List.of("fine"), top.field("s").type().asStructType().fields().stream()
        .map(Types.NestedField::name).toList());
  }

  /**
   * A producer whose keys are data would grow the schema without end (helper-80: 50,000 keys in one
   * record, 132 schemas and 5.5 GB of metadata in five minutes): evolution stops at 10,000 fields.
   */
  @Test
  void evolutionAddsNoColumnPastTheMostFields() throws Exception {
    List<Types.NestedField> columns = new java.util.ArrayList<>(SCHEMA.columns());
    int fields = org.apache.iceberg.types.TypeUtil.indexById(SCHEMA.asStruct()).size();
    for (int i = 0; fields < SchemaEvolution.MOST_FIELDS - 5; i++, fields++) {
      columns.add(Types.NestedField.optional(100 + i, "c" + i, Types.LongType.get()));
    }
    Table table = catalog.createTable(TableIdentifier.of("db", "wide"), new Schema(columns),
        PartitionSpec.unpartitioned(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    StringBuilder message = new StringBuilder("{\"id\":1");
    for (int k = 0; k < 20; k++) {
      message.append(",\"k").append(k).append("\":").append(k);
    }
    String[] messages = {message.append('}').toString()};

    assertTrue(SchemaEvolution.evolve(table, reportFor(table, messages)));
    assertEquals(SchemaEvolution.MOST_FIELDS, org.apache.iceberg.types.TypeUtil.indexById(table.schema().asStruct()).size(),
        "5 of the 20 added");
    assertFalse(SchemaEvolution.evolve(table, reportFor(table, messages)), "and no more");
  }

  /**
   * A key named as a partition field ({@code id_bucket} of {@code bucket(4, id)}) is not added:
   * Iceberg refuses the commit, and the sink failed at every restart (helper-83). The others are.
   */
  @Test
  void aKeyNamedAsAPartitionFieldAddsNoColumn() throws Exception {
    Table table = catalog.createTable(TableIdentifier.of("db", "bucketed"), SCHEMA,
        PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build(), Map.of(TableProperties.FORMAT_VERSION, "2"));
    String[] messages = {"{\"id\":1,\"ID_BUCKET\":7,\"fresh\":1}"};
    assertTrue(SchemaEvolution.evolve(table, reportFor(table, messages)));
    assertEquals(null, table.schema().caseInsensitiveFindField("id_bucket"));
    assertEquals(Types.LongType.get(), table.schema().findType("fresh"));
  }

  @Test
  void newKeysThatDifferOnlyInCaseAddOneColumn() throws Exception {
    Table table = create("cases");
    String[] messages = {"{\"id\":1,\"Foo\":1,\"o\":{\"A\":1}}", "{\"id\":2,\"foo\":2,\"o\":{\"a\":2}}"};
    assertTrue(SchemaEvolution.evolve(table, reportFor(table, messages)));
    Types.StructType top = table.schema().asStruct();
    assertEquals(Types.LongType.get(), top.field("Foo").type());
    assertEquals(null, top.field("foo"));
    Types.StructType o = top.field("o").type().asStructType();
    assertEquals(List.of("A"), o.fields().stream().map(Types.NestedField::name).toList());
    table.schema().caseInsensitiveFindField("foo"); // throws when two names collide

    // a key holding a "." that names a nested field but for case ("P.b" next to p.b): left out
    // (before, it was added, and case-insensitive readers failed on the table)
    assertTrue(SchemaEvolution.evolve(table, reportFor(table, "{\"id\":3,\"p\":{\"b\":1}}")));
    assertFalse(SchemaEvolution.evolve(table, reportFor(table, "{\"id\":4,\"P.b\":2}")));
    assertEquals(null, table.schema().asStruct().field("P.b"));
    table.schema().caseInsensitiveFindField("p.b");

    // an empty key is no column, at the top level or in a new struct (before, the nested one was)
    assertTrue(SchemaEvolution.evolve(table, reportFor(table, "{\"id\":5,\"\":1,\"q\":{\"\":1,\"r\":2}}")));
    assertEquals(null, table.schema().asStruct().field(""));
    assertEquals(List.of("r"),
        table.schema().findField("q").type().asStructType().fields().stream().map(Types.NestedField::name).toList());
  }

  private List<UnknownField> reportFor(Table table, String... messages) {
    NativeFileWriterFactory factory = NativeFileWriterFactory.forTable(table, allocator);
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(factory.arrowSchema(), DESCRIBING);
        MessageBatch batch = batchOf(messages);
        NativeTaskWriter writer = factory.newTaskWriter()) {
      writer.write(decoder, batch, BadRecordPolicy.DEAD_LETTER);
      return decoder.takeUnknownFields();
    }
  }

  private static MessageBatch batchOf(String... messages) {
    MessageBatch batch = new MessageBatch();
    for (String m : messages) {
      batch.add(m.getBytes(StandardCharsets.UTF_8));
    }
    return batch;
  }
}
