package dev.floe.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.flink.sink.FloeIcebergSink;
import dev.floe.iceberg.Catalogs;
import dev.floe.testing.TableFingerprint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptionsInternal;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The {@code RowData} path against Iceberg's own Flink sink on the same input: random rows of
 * every type floe writes (appends, unpartitioned and hash-distributed by bucket), and a changelog
 * of inserts, updates and deletes by key (upsert mode, several checkpoints), each read back with
 * Iceberg's generic reader and compared value for value.
 */
public class RowDataSinkTest extends EmbeddedCatalogTest {
  static final Schema ALL_TYPES =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "flag", Types.BooleanType.get()),
              Types.NestedField.optional(3, "count", Types.IntegerType.get()),
              Types.NestedField.optional(4, "ratio", Types.FloatType.get()),
              Types.NestedField.optional(5, "score", Types.DoubleType.get()),
              Types.NestedField.optional(6, "price", Types.DecimalType.of(9, 2)),
              Types.NestedField.optional(7, "balance", Types.DecimalType.of(38, 10)),
              Types.NestedField.optional(8, "day", Types.DateType.get()),
              Types.NestedField.optional(9, "time_of_day", Types.TimeType.get()),
              Types.NestedField.optional(10, "local_ts", Types.TimestampType.withoutZone()),
              Types.NestedField.optional(11, "instant", Types.TimestampType.withZone()),
              Types.NestedField.optional(12, "name", Types.StringType.get()),
              Types.NestedField.optional(13, "blob", Types.BinaryType.get()),
              Types.NestedField.optional(14, "code", Types.FixedType.ofLength(7)),
              Types.NestedField.optional(15, "uuid", Types.UUIDType.get()),
              Types.NestedField.optional(
                  16,
                  "point",
                  Types.StructType.of(
                      Types.NestedField.optional(17, "x", Types.IntegerType.get()),
                      Types.NestedField.required(18, "label", Types.StringType.get()))),
              Types.NestedField.optional(19, "tags", Types.ListType.ofOptional(20, Types.StringType.get())),
              Types.NestedField.optional(
                  21, "attrs", Types.MapType.ofOptional(22, 23, Types.StringType.get(), Types.LongType.get())),
              Types.NestedField.optional(
                  24,
                  "items",
                  Types.ListType.ofRequired(
                      25,
                      Types.StructType.of(
                          Types.NestedField.optional(26, "n", Types.LongType.get()),
                          Types.NestedField.optional(27, "note", Types.StringType.get()))))));
  // No identifier fields: with them, Iceberg's sink drops repeats of a key within a checkpoint
  // even when it appends, and the random ids repeat.

  /**
   * The columns of {@link #ALL_TYPES} that libfloe reads from Flink's binary rows itself (all but
   * fixed, uuid, lists and maps), a nested row with a required field among them.
   */
  public static final Schema NATIVE_TYPES =
      new Schema(
          ALL_TYPES.columns().stream()
              .filter(c -> !Set.of("code", "uuid", "tags", "attrs", "items").contains(c.name()))
              .toList());

  static final Schema ACCOUNTS =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "owner", Types.StringType.get()),
              Types.NestedField.optional(3, "amount", Types.DecimalType.of(10, 2)),
              Types.NestedField.optional(4, "version", Types.IntegerType.get())),
          Set.of(1));


  private Table create(String name, Schema schema, PartitionSpec spec) {
    return catalog.createTable(TableIdentifier.of("db", name), schema, spec, Map.of(TableProperties.FORMAT_VERSION, "2"));
  }

  private IcebergTableRef ref(String name) {
    return IcebergTableRef.embedded(warehouse, TableIdentifier.of("db", name));
  }

  private static StreamExecutionEnvironment environment() {
    return environment(new Configuration());
  }

  private static StreamExecutionEnvironment environment(Configuration conf) {
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);
    env.enableCheckpointing(200);
    return env;
  }

  private static DataStream<RowData> input(StreamExecutionEnvironment env, List<RowData> rows, RowType type, boolean slow) {
    DataStream<RowData> in = env.fromData(rows, InternalTypeInfo.of(type)).setParallelism(1);
    return slow ? in.map(new SlowDown()).returns(in.getType()).setParallelism(1) : in;
  }

  /** Sleeps a millisecond every few rows, so a changelog spans several checkpoints. */
  static final class SlowDown implements MapFunction<RowData, RowData> {
    private long seen;

    @Override
    public RowData map(RowData row) throws InterruptedException {
      if (++seen % 4 == 0) {
        Thread.sleep(1);
      }
      return row;
    }
  }

  /** The table's rows as canonical texts, sorted: equal lists are equal multisets of full values. */
  private static List<String> rows(Table table) {
    table.refresh();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      int fields = table.schema().columns().size();
      return StreamSupport.stream(records.spliterator(), false)
          .map(r -> TableFingerprint.canonical(r, fields))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void randomRowsOfEveryTypeReadBackAsIcebergsSinkWritesThem() throws Exception {
    assertSameTablesAsIcebergsSink(ALL_TYPES, "all", 7);
  }

  /**
   * Rows of the types libfloe reads from Flink's binary rows itself (no lists, maps, fixed or
   * uuid): they reach the writers over the network as {@code BinaryRowData}, so the native path
   * ({@code BinaryRows}) writes them.
   */
  @Test
  void binaryRowsReadNativelyReadBackAsIcebergsSinkWritesThem() throws Exception {
    assertSameTablesAsIcebergsSink(NATIVE_TYPES, "native", 8);
  }

  private void assertSameTablesAsIcebergsSink(Schema schema, String prefix, long seed) throws Exception {
    RowType type = FlinkSchemaUtil.convert(schema);
    List<RowData> rows = new RandomRowData(seed).rows(type, 3_000);
    for (PartitionSpec spec :
        List.of(PartitionSpec.unpartitioned(), PartitionSpec.builderFor(schema).bucket("id", 4).build())) {
      String suffix = prefix + (spec.isUnpartitioned() ? "_flat" : "_bucketed");
      DistributionMode mode = spec.isUnpartitioned() ? DistributionMode.NONE : DistributionMode.HASH;
      Table stock = create("stock_" + suffix, schema, spec);
      Table floe = create("floe_" + suffix, schema, spec);

      StreamExecutionEnvironment env = environment();
      StockFlink.flinkSink(input(env, rows, type, false), Catalogs.embeddedProperties(warehouse), TableIdentifier.of("db", "stock_" + suffix))
          .distributionMode(mode)
          .append();
      env.execute("iceberg's sink");

      env = environment();
      FloeIcebergSink.forRowData(ref("floe_" + suffix)).distributionMode(mode).writeParallelism(2).append(input(env, rows, type, false));
      env.execute("floe's sink");

      List<String> expected = rows(stock);
      assertEquals(rows.size(), expected.size());
      assertEquals(expected, rows(floe), suffix);
    }
  }

  /**
   * A changelog over 300 keys: inserts, update pairs ({@code UPDATE_BEFORE} then {@code
   * UPDATE_AFTER}), deletes and re-inserts, slowed so it spans several checkpoints.
   */
  private static List<RowData> changelog(long seed, int changes) {
    return changelog(seed, changes, true);
  }

  /**
   * @param insertsOfLiveKeys whether an {@code INSERT} may come for a live key (an upsert); without
   *     them the changelog is a well-formed retraction stream, whose table does not depend on where
   *     the checkpoints fall outside upsert mode either
   */
  private static List<RowData> changelog(long seed, int changes, boolean insertsOfLiveKeys) {
    Random random = new Random(seed);
    Map<Long, GenericRowData> live = new LinkedHashMap<>();
    List<RowData> out = new ArrayList<>();
    for (int i = 0; i < changes; i++) {
      long key = random.nextInt(300);
      GenericRowData next =
          GenericRowData.of(
              key,
              StringData.fromString("owner-" + random.nextInt(50)),
              DecimalData.fromBigDecimal(BigDecimal.valueOf(random.nextInt(1_000_000), 2), 10, 2),
              i);
      GenericRowData current = live.get(key);
      int choice = random.nextInt(100);
      if (current == null || (insertsOfLiveKeys && choice < 15)) {
        out.add(next); // INSERT (of a new key, or an upsert of a live one)
        live.put(key, next);
      } else if (choice < 75) {
        out.add(withKind(current, RowKind.UPDATE_BEFORE));
        out.add(withKind(next, RowKind.UPDATE_AFTER));
        live.put(key, next);
      } else {
        out.add(withKind(current, RowKind.DELETE));
        live.remove(key);
      }
    }
    return out;
  }

  private static GenericRowData withKind(GenericRowData row, RowKind kind) {
    GenericRowData copy = GenericRowData.of(row.getField(0), row.getField(1), row.getField(2), row.getField(3));
    copy.setRowKind(kind);
    return copy;
  }

  /** What the changelog leaves: the last row of each key not deleted after it. */
  private static List<String> applied(List<RowData> changes) {
    Map<Object, String> live = new LinkedHashMap<>();
    for (RowData row : changes) {
      GenericRowData r = (GenericRowData) row;
      switch (r.getRowKind()) {
        case INSERT, UPDATE_AFTER ->
            live.put(
                r.getField(0),
                "(" + r.getField(0) + ",\"" + r.getField(1) + "\"," + ((DecimalData) r.getField(2)).toBigDecimal() + "," + r.getField(3) + ")");
        case DELETE -> live.remove(r.getField(0));
        case UPDATE_BEFORE -> {}
      }
    }
    return live.values().stream().sorted().toList();
  }

  @Test
  void aChangelogGivesTheTableIcebergsSinkGivesInUpsertMode() throws Exception {
    RowType type = FlinkSchemaUtil.convert(ACCOUNTS);
    List<RowData> changes = changelog(5, 4_000);
    PartitionSpec buckets = PartitionSpec.builderFor(ACCOUNTS).bucket("id", 4).build();
    Table stock = create("stock_upserts", ACCOUNTS, buckets);
    Table floe = create("floe_upserts", ACCOUNTS, buckets);

    StreamExecutionEnvironment env = environment();
    StockFlink.icebergSink(input(env, changes, type, true), Catalogs.embeddedProperties(warehouse), TableIdentifier.of("db", "stock_upserts"))
        .upsert(true)
        .equalityFieldColumns(List.of("id"))
        .append();
    env.execute("iceberg's sink, upserts");

    env = environment();
    FloeIcebergSink.forRowData(ref("floe_upserts")).upsert(true).writeParallelism(2).append(input(env, changes, type, true));
    env.execute("floe's sink, upserts");

    assertEquals(applied(changes), rows(floe));
    assertEquals(rows(stock), rows(floe));
    floe.refresh();
    long commits = 0;
    long commitsWithDeletes = 0;
    for (Snapshot s : floe.snapshots()) {
      commits++;
      if (Long.parseLong(s.summary().getOrDefault("added-delete-files", "0")) > 0) {
        commitsWithDeletes++;
      }
    }
    assertTrue(commits > 2, "the changelog spans several checkpoints: " + commits + " commits");
    assertTrue(commitsWithDeletes > 1, commitsWithDeletes + " commits with delete files");
  }

  /**
   * Outside upsert mode, a table with identifier fields takes a changelog as Iceberg's sink does:
   * {@code UPDATE_BEFORE} and {@code DELETE} delete their key's rows, {@code INSERT} and {@code
   * UPDATE_AFTER} insert. Before, floe refused the changelog (it needed upsert mode).
   */
  @Test
  void aChangelogOutsideUpsertModeGivesTheTableIcebergsSinkGives() throws Exception {
    changelogOnBothSinks("changes", PartitionSpec.builderFor(ACCOUNTS).bucket("id", 4).build(), changelog(8, 4_000, false));
  }

  /**
   * Outside upsert mode, a table partitioned by a column that is not a key takes a changelog as
   * Iceberg's sink does: each {@code UPDATE_BEFORE} and {@code DELETE} deletes its key in the
   * partition of its own values, so a key that moves between partitions leaves no old row behind.
   * Before, floe appended to such a table and refused the changelog.
   */
  @Test
  void aChangelogIntoATablePartitionedByAnotherColumnGivesTheTableIcebergsSinkGives() throws Exception {
    Table floe = changelogOnBothSinks(
        "by_owner", PartitionSpec.builderFor(ACCOUNTS).bucket("owner", 4).build(), changelog(11, 3_000, false));
    assertTrue(Long.parseLong(floe.currentSnapshot().summary().getOrDefault("total-equality-deletes", "0")) > 0,
        "equality deletes were written: " + floe.currentSnapshot().summary());
  }

  /**
   * Writes {@code changes} outside upsert mode through Iceberg's sink into {@code stock_<name>} and
   * through floe's (writers at parallelism 2) into {@code floe_<name>}, both keyed tables with
   * {@code spec}; floe's holds what the changelog leaves, and what Iceberg's holds.
   *
   * @return floe's table, refreshed
   */
  private Table changelogOnBothSinks(String name, PartitionSpec spec, List<RowData> changes) throws Exception {
    RowType type = FlinkSchemaUtil.convert(ACCOUNTS);
    Table stock = create("stock_" + name, ACCOUNTS, spec);
    Table floe = create("floe_" + name, ACCOUNTS, spec);

    StreamExecutionEnvironment env = environment();
    StockFlink.icebergSink(input(env, changes, type, true), Catalogs.embeddedProperties(warehouse), TableIdentifier.of("db", "stock_" + name))
        .append();
    env.execute("iceberg's sink, a changelog");

    env = environment();
    FloeIcebergSink.forRowData(ref("floe_" + name)).writeParallelism(2).append(input(env, changes, type, true));
    env.execute("floe's sink, a changelog");

    assertEquals(applied(changes), rows(floe));
    assertEquals(rows(stock), rows(floe));
    floe.refresh();
    return floe;
  }

  /**
   * Every checkpoint's files written ahead into Iceberg manifests ({@code manifestsAbove(0)}; by
   * default past 1 MiB of metadata, so that Flink's state stays small): the changelog applies
   * exactly, deletes included, and the commits leave none of those manifests behind.
   */
  @Test
  void filesWrittenAheadIntoManifestsCommitTheSameTable() throws Exception {
    RowType type = FlinkSchemaUtil.convert(ACCOUNTS);
    List<RowData> changes = changelog(11, 3_000);
    PartitionSpec buckets = PartitionSpec.builderFor(ACCOUNTS).bucket("id", 4).build();
    Table table = create("manifests_ahead", ACCOUNTS, buckets);
    // Where Iceberg's sink writes a checkpoint's manifests (its table property): here, a folder of their own
    java.nio.file.Path ahead = warehouse.resolve("manifests-ahead");
    table.updateProperties().set("flink.manifests.location", ahead.toString()).commit();
    StreamExecutionEnvironment env = environment();
    FloeIcebergSink.forRowData(ref("manifests_ahead")).upsert(true).writeParallelism(2).manifestsAbove(0)
        .append(input(env, changes, type, true));
    env.execute("floe's sink, files through manifests");

    assertEquals(applied(changes), rows(table));
    table.refresh();
    long commitsWithDeletes = 0;
    for (Snapshot s : table.snapshots()) {
      commitsWithDeletes += Long.parseLong(s.summary().getOrDefault("added-delete-files", "0")) > 0 ? 1 : 0;
    }
    assertTrue(commitsWithDeletes > 1, commitsWithDeletes + " commits with delete files");
    // Read from manifests not yet committed, files carry Iceberg's unassigned sequence number;
    // the commits gave each delete file its snapshot's (a -1 would apply to no row).
    for (var manifest : table.currentSnapshot().deleteManifests(table.io())) {
      try (var deletes = org.apache.iceberg.ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        for (var file : deletes) {
          assertTrue(file.dataSequenceNumber() != null && file.dataSequenceNumber() > 0,
              file.location() + " has sequence number " + file.dataSequenceNumber());
        }
      }
    }
    assertTrue(java.nio.file.Files.isDirectory(ahead), "manifests were written ahead");
    try (var files = java.nio.file.Files.list(ahead)) {
      assertEquals(List.of(), files.toList(), "and deleted once committed");
    }
  }

  /**
   * A table whose {@code write.upsert.enabled} is true takes upserts without {@code upsert(true)}
   * on the builder, as Iceberg's sink does: the changelog applies. Before, the builder appended and
   * the table held every version of a key.
   */
  @Test
  void theTablesUpsertPropertyTurnsUpsertModeOn() throws Exception {
    RowType type = FlinkSchemaUtil.convert(ACCOUNTS);
    List<RowData> changes = changelog(7, 1_000);
    Table table = create("upsert_property", ACCOUNTS, PartitionSpec.unpartitioned());
    table.updateProperties().set(TableProperties.UPSERT_ENABLED, "true").commit();
    StreamExecutionEnvironment env = environment();
    FloeIcebergSink.forRowData(ref("upsert_property")).append(input(env, changes, type, false));
    env.execute("upserts by the table's property");
    assertEquals(applied(changes), rows(table));
  }

  /**
   * {@code input.sinkTo(build())}, as a job written for Iceberg's {@code IcebergSink} adds it:
   * the sink keys a changelog by identifier fields itself (its pre-write topology), in upsert mode
   * and outside it, at parallelism 2 from a source of parallelism 1. Before, such a sink was
   * refused unless added with {@code append(input)}.
   */
  @Test
  void aSinkAddedWithSinkToKeysAChangelogItself() throws Exception {
    RowType type = FlinkSchemaUtil.convert(ACCOUNTS);
    List<RowData> changes = changelog(9, 2_000, false);
    Table stock = create("stock_sinkto", ACCOUNTS, PartitionSpec.unpartitioned());
    Table floe = create("floe_sinkto", ACCOUNTS, PartitionSpec.unpartitioned());
    Table upserts = create("floe_sinkto_upserts", ACCOUNTS, PartitionSpec.unpartitioned());

    StreamExecutionEnvironment env = environment();
    StockFlink.icebergSink(input(env, changes, type, true), Catalogs.embeddedProperties(warehouse), TableIdentifier.of("db", "stock_sinkto"))
        .append();
    env.execute("iceberg's sink, a changelog");

    env = environment();
    input(env, changes, type, true).sinkTo(FloeIcebergSink.forRowData(ref("floe_sinkto")).build()).setParallelism(2);
    env.execute("floe's sink by sinkTo, a changelog");

    List<RowData> upsertChanges = changelog(10, 2_000);
    env = environment();
    input(env, upsertChanges, type, true).sinkTo(FloeIcebergSink.forRowData(ref("floe_sinkto_upserts")).upsert(true).build())
        .setParallelism(2);
    env.execute("floe's sink by sinkTo, upserts");

    assertEquals(applied(changes), rows(floe));
    assertEquals(rows(stock), rows(floe));
    assertEquals(applied(upsertChanges), rows(upserts));
    // An upsert sink is refused when built, as Iceberg's: into a table without identifier fields,
    // and into one partitioned by a column that is not a key (before, that failed at the first row)
    create("plain", new Schema(ACCOUNTS.columns()), PartitionSpec.unpartitioned());
    IllegalArgumentException e = assertThrows(
        IllegalArgumentException.class, () -> FloeIcebergSink.forRowData(ref("plain")).upsert(true).build());
    assertTrue(e.getMessage().contains("has no identifier fields"), e.getMessage());
    create("by_owner", ACCOUNTS, PartitionSpec.builderFor(ACCOUNTS).identity("owner").build());
    e = assertThrows(
        IllegalArgumentException.class, () -> FloeIcebergSink.forRowData(ref("by_owner")).upsert(true).build());
    assertTrue(e.getMessage().contains("'owner'"), e.getMessage());
  }

  /**
   * A table with identifier fields whose older partition spec, still holding live files, is by a
   * column that is not one cannot be written by key (a key does not name its partition there): its
   * rows are appended, as before floe wrote such tables by key. Found in review: the first job of
   * the new mode failed at its first row.
   */
  @Test
  void aTableWhoseOlderSpecIsNotByKeyIsAppendedTo() throws Exception {
    RowType type = FlinkSchemaUtil.convert(ACCOUNTS);
    Table table = create("evolved", ACCOUNTS, PartitionSpec.builderFor(ACCOUNTS).identity("owner").build());
    List<RowData> first = new ArrayList<>();
    List<RowData> second = new ArrayList<>();
    for (long id = 0; id < 40; id++) {
      (id < 20 ? first : second).add(GenericRowData.of(id, StringData.fromString("owner-" + id % 3), null, (int) id));
    }
    StreamExecutionEnvironment env = environment();
    FloeIcebergSink.forRowData(ref("evolved")).append(input(env, first, type, false));
    env.execute("before the spec changes");
    table.updateSpec().removeField("owner").addField(org.apache.iceberg.expressions.Expressions.bucket("id", 4)).commit();

    env = environment();
    FloeIcebergSink.forRowData(ref("evolved")).append(input(env, second, type, false));
    env.execute("after it changed");
    assertEquals(40, rows(table).size());
  }

  /**
   * Rows that leave out an optional column (written as null) into a table partitioned by it and by
   * bucket, under hash distribution: they land, keyed by the bucket alone. Before the fix
   * (helper-78) the key's accessor failed on the first row.
   */
  @Test
  void rowsWithoutAPartitionColumnLandUnderHashDistribution() throws Exception {
    Schema schema = new Schema(ACCOUNTS.columns());
    Table table = create("omitted", schema, PartitionSpec.builderFor(schema).identity("owner").bucket("id", 4).build());
    RowType type = RowType.of(new LogicalType[] {new BigIntType(false), new IntType()}, new String[] {"id", "version"});
    List<RowData> in = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (long id = 0; id < 100; id++) {
      in.add(GenericRowData.of(id, (int) id * 2));
      expected.add(TableFingerprint.canonical(org.apache.iceberg.data.GenericRecord.create(schema)
          .copy(Map.of("id", id, "version", (int) id * 2)), 4));
    }
    StreamExecutionEnvironment env = environment();
    FloeIcebergSink.forRowData(ref("omitted")).rowType(type).distributionMode(DistributionMode.HASH)
        .append(input(env, in, type, false));
    env.execute("rows without the owner column");
    assertEquals(expected.stream().sorted().toList(), rows(table));
  }

  /** A table without identifier fields takes inserts only: a changelog is refused, saying what would take it. */
  @Test
  void anAppendOnlySinkRefusesChangelogRowsNamingUpsertMode() {
    RowType type = FlinkSchemaUtil.convert(ACCOUNTS);
    create("appends", new Schema(ACCOUNTS.columns()), PartitionSpec.unpartitioned());
    List<RowData> changes = changelog(6, 200);
    StreamExecutionEnvironment env = environment();
    FloeIcebergSink.forRowData(ref("appends")).append(input(env, changes, type, false));
    Exception e = assertThrows(Exception.class, () -> env.execute("appends get a changelog"));
    Throwable cause = e;
    while (cause.getCause() != null && !(cause instanceof IllegalArgumentException)) {
      cause = cause.getCause();
    }
    assertTrue(cause.getMessage().contains("needs a table with identifier fields"), cause.getMessage());
    assertTrue(cause.getMessage().contains("upsert mode"), cause.getMessage());
  }

  /**
   * Flink's application mode with high availability fixes a job's id (from the cluster id), so a
   * job deployed again without state runs under the id of the deployment before it, and its
   * checkpoint ids start from 1 again. Iceberg's {@code IcebergSink} 1.11 then takes its
   * checkpoints for ones the table already has and drops them (apache/iceberg#18098). Here the
   * second run's rows must land.
   */
  @Test
  void aRunWithoutStateUnderAnEarlierRunsJobIdCommitsItsRows() throws Exception {
    RowType type = FlinkSchemaUtil.convert(ACCOUNTS);
    Table table = create("redeployed", ACCOUNTS, PartitionSpec.unpartitioned());
    Configuration fixedJobId = new Configuration();
    fixedJobId.set(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID, JobID.generate().toHexString());
    List<String> expected = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      List<RowData> rows = new ArrayList<>();
      for (long id = run * 2_000L; id < (run + 1) * 2_000L; id++) {
        rows.add(GenericRowData.of(id, StringData.fromString("run " + run), null, run));
        Record record = org.apache.iceberg.data.GenericRecord.create(ACCOUNTS);
        record.setField("id", id);
        record.setField("owner", "run " + run);
        record.setField("version", run);
        expected.add(TableFingerprint.canonical(record, 4));
      }
      StreamExecutionEnvironment env = environment(fixedJobId.clone());
      FloeIcebergSink.forRowData(ref("redeployed")).append(input(env, rows, type, true));
      env.execute("run " + run);
    }
    table.refresh();
    Set<String> jobIds = new HashSet<>();
    Set<String> runIds = new HashSet<>();
    table.snapshots().forEach(s -> {
      jobIds.add(s.summary().get("flink.job-id"));
      runIds.add(s.summary().get("floe.flink.run-id"));
    });
    assertEquals(Set.of(fixedJobId.get(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID)), jobIds, "both runs had one job id");
    assertEquals(2, runIds.size(), "each run names itself: " + runIds);
    List<String> written = rows(table);
    Map<String, Long> byRun = new java.util.TreeMap<>();
    written.forEach(r -> byRun.merge(r.contains("\"run 0\"") ? "run 0" : "run 1", 1L, Long::sum));
    assertEquals(Map.of("run 0", 2_000L, "run 1", 2_000L), byRun, "rows in the table by run");
    assertEquals(TableFingerprint.ofCanonical(expected), TableFingerprint.ofCanonical(written), "both runs' rows, once");
  }
}
