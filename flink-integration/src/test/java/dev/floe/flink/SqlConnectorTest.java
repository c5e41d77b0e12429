package dev.floe.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.corpus.NexmarkEvent.Bid;
import dev.floe.flink.example.NexmarkToIceberg;
import dev.floe.iceberg.Catalogs;
import dev.floe.testing.TableFingerprint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

/**
 * Flink SQL over a Kafka table of the Nexmark topic: q0 with {@code 'format' = 'floe-json'} into
 * an existing bucketed {@code 'connector' = 'floe-iceberg'} table (the RowData path end to end);
 * an updating aggregate upserting by primary key into a table the connector creates, against the
 * same query through {@code 'connector' = 'iceberg'}; the example job; a {@code floe-iceberg}
 * catalog; an append-only table refusing an updating query.
 */
class SqlConnectorTest extends FlinkJobsOnKafka {

  /** The options naming a table of the embedded catalog, as Iceberg's connector takes them. */
  private static String catalogOptions(String connector, String table) {
    return "'connector' = '" + connector + "', "
        + "'catalog-name' = 'floe', "
        + "'catalog-impl' = '" + JdbcCatalog.class.getName() + "', "
        + "'uri' = 'jdbc:sqlite:" + warehouse.toAbsolutePath().resolve("catalog.db") + "', "
        + "'warehouse' = '" + warehouse.toAbsolutePath() + "', "
        + "'catalog-database' = 'nexmark', "
        + "'catalog-table' = '" + table + "'";
  }

  /** An environment with the topic as table {@code events} in Flink's {@code json} format. */
  private static StreamTableEnvironment tables() {
    return tables("json");
  }

  private static StreamTableEnvironment tables(String format) {
    StreamTableEnvironment sql = StreamTableEnvironment.create(environment(0));
    sql.executeSql(
        "CREATE TABLE events (" + NexmarkToIceberg.columns() + ") WITH ("
            + "'connector' = 'kafka', 'topic' = 'events', "
            + "'properties.bootstrap.servers' = '" + kafka.bootstrapServers() + "', "
            + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', "
            + "'format' = '" + format + "')");
    return sql;
  }

  /** The RowData path end to end: floe-json rows into an existing 4-bucket v2 table. */
  @Test
  void nexmarkQ0IntoAnExistingBucketedTableIsExact() throws Exception {
    Table table = createTable("sql_q0");
    StreamTableEnvironment sql = tables("floe-json");
    sql.executeSql("CREATE TABLE q0 (" + NexmarkToIceberg.columns() + ") WITH (" + catalogOptions("floe-iceberg", "sql_q0") + ")");
    sql.executeSql("INSERT INTO q0 SELECT * FROM events").await();

    table.refresh();
    assertEquals(expected(), TableFingerprint.of(table));
    assertTrue(table.currentSnapshot().summary().containsKey("flink.max-committed-checkpoint-id"));
  }

  /** Auction id -> number of bids, read back from a table of (auction, bids) rows. */
  private static Map<Long, Long> bidsPerAuction(Table table) {
    table.refresh();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      return StreamSupport.stream(rows.spliterator(), false)
          .collect(
              Collectors.toMap(
                  r -> (Long) r.getField("auction"), r -> (Long) r.getField("bids"), (a, b) -> -1L, TreeMap::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void anUpdatingAggregateUpsertsByPrimaryKeyIntoATableTheConnectorCreates() throws Exception {
    Table floe = bidsPerAuctionOnBothEngines("bids", ", 'format-version' = '2', 'upsert-enabled' = 'true'");
    assertEquals(List.of(1), List.copyOf(floe.schema().identifierFieldIds()), "the primary key became the identifier field");
  }

  /**
   * Without upsert mode, a table whose primary key is its identifier fields takes an updating
   * query's changes as Iceberg's connector takes them: each update's {@code UPDATE_BEFORE} deletes
   * the key's row, its {@code UPDATE_AFTER} inserts the new one. Before, the query was refused at
   * planning (the table took inserts only).
   */
  @Test
  void anUpdatingAggregateIntoAKeyedTableWithoutUpsertModeIsWrittenAsIcebergsConnectorWritesIt() throws Exception {
    bidsPerAuctionOnBothEngines("changes", ", 'format-version' = '2'");
  }

  /**
   * Without upsert mode, a keyed table partitioned by a column that is not its key takes an
   * updating query as Iceberg's connector takes it: each {@code UPDATE_BEFORE} is deleted in the
   * partition of its own values, so a key whose tier changes leaves no row in its old partition.
   * Before, the query was refused at planning (floe appended to such a table).
   */
  @Test
  void anUpdatingAggregateIntoATablePartitionedByANonKeyColumnIsWrittenAsIcebergsConnectorWritesIt() throws Exception {
    StreamTableEnvironment sql = tables();
    String columns = "auction BIGINT, bids BIGINT, tier BIGINT, PRIMARY KEY (auction) NOT ENFORCED";
    for (String engine : List.of("floe", "stock")) {
      String connector = engine.equals("floe") ? "floe-iceberg" : "iceberg";
      sql.executeSql("CREATE TABLE tiers_" + engine + " (" + columns + ") PARTITIONED BY (tier) WITH ("
          + catalogOptions(connector, "tiers_" + engine) + ", 'format-version' = '2')");
      sql.executeSql("INSERT INTO tiers_" + engine
          + " SELECT bid.auction, COUNT(*), MOD(COUNT(*), 3) FROM events WHERE event_type = 2 GROUP BY bid.auction")
          .await();
    }
    Map<Long, Long> expected =
        events.stream()
            .filter(e -> e instanceof Bid)
            .collect(Collectors.groupingBy(e -> ((Bid) e).auction(), TreeMap::new, Collectors.counting()));
    Table floe = catalog.loadTable(TableIdentifier.of("nexmark", "tiers_floe"));
    assertEquals(List.of("tier"), floe.spec().fields().stream().map(f -> f.name()).toList());
    assertEquals(expected, bidsPerAuction(floe));
    assertEquals(bidsPerAuction(catalog.loadTable(TableIdentifier.of("nexmark", "tiers_stock"))), bidsPerAuction(floe));
  }

  /**
   * Bids per auction, an updating aggregate, into {@code <name>_floe} and {@code <name>_stock}
   * (tables the connectors create, keyed by auction, with {@code options}): each holds one row per
   * auction with its count (a duplicate key would read as -1).
   *
   * @return floe's table
   */
  private Table bidsPerAuctionOnBothEngines(String name, String options) throws Exception {
    StreamTableEnvironment sql = tables();
    String columns = "auction BIGINT, bids BIGINT, PRIMARY KEY (auction) NOT ENFORCED";
    for (String engine : List.of("floe", "stock")) {
      String connector = engine.equals("floe") ? "floe-iceberg" : "iceberg";
      sql.executeSql("CREATE TABLE " + name + "_" + engine + " (" + columns + ") WITH ("
          + catalogOptions(connector, name + "_" + engine) + options + ")");
      sql.executeSql("INSERT INTO " + name + "_" + engine
          + " SELECT bid.auction, COUNT(*) FROM events WHERE event_type = 2 GROUP BY bid.auction").await();
    }
    Map<Long, Long> expected =
        events.stream()
            .filter(e -> e instanceof Bid)
            .collect(Collectors.groupingBy(e -> ((Bid) e).auction(), TreeMap::new, Collectors.counting()));
    Table floe = catalog.loadTable(TableIdentifier.of("nexmark", name + "_floe"));
    assertEquals(expected, bidsPerAuction(floe));
    assertEquals(bidsPerAuction(catalog.loadTable(TableIdentifier.of("nexmark", name + "_stock"))), bidsPerAuction(floe));
    return floe;
  }

  /**
   * {@code floe.expire-snapshots.interval}: each job's committer expires the table's old snapshots
   * after its commits, by the table's retention (here a snapshot is old after 1 ms, so only the
   * current one stays); the option is the sink's, not a table property. The upserts of two runs
   * still read back exact.
   */
  @Test
  void theExpiryOptionKeepsOnlyTheSnapshotsTheTablesRetentionKeeps() throws Exception {
    StreamTableEnvironment sql = tables();
    sql.executeSql("CREATE TABLE bids_expiring (auction BIGINT, bids BIGINT, PRIMARY KEY (auction) NOT ENFORCED) WITH ("
        + catalogOptions("floe-iceberg", "bids_expiring") + ", 'format-version' = '2', 'upsert-enabled' = 'true', "
        + "'history.expire.max-snapshot-age-ms' = '1', 'floe.expire-snapshots.interval' = '1 ms')");
    String insert = "INSERT INTO bids_expiring SELECT bid.auction, COUNT(*) FROM events WHERE event_type = 2 GROUP BY bid.auction";
    sql.executeSql(insert).await();
    sql.executeSql(insert).await();

    Table table = catalog.loadTable(TableIdentifier.of("nexmark", "bids_expiring"));
    List<Snapshot> snapshots = new java.util.ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    assertEquals(1, snapshots.size(), "only the current snapshot stays");
    assertFalse(table.properties().containsKey("floe.expire-snapshots.interval"));
    Map<Long, Long> expected =
        events.stream()
            .filter(e -> e instanceof Bid)
            .collect(Collectors.groupingBy(e -> ((Bid) e).auction(), TreeMap::new, Collectors.counting()));
    assertEquals(expected, bidsPerAuction(table));
  }

  /**
   * floe on both ends: the example job reads the topic with {@code 'format' = 'floe-json'} and
   * writes a table it creates with {@code 'connector' = 'floe-iceberg'}; the table is the topic.
   */
  @Test
  void theExampleJobLandsTheTopicThroughFloeJsonAndFloeIceberg() throws Exception {
    Path lake = warehouse.resolve("example");
    NexmarkToIceberg.run(kafka.bootstrapServers(), "events", lake);
    Catalog exampleCatalog = Catalogs.embedded(lake);
    try {
      Table table = exampleCatalog.loadTable(TableIdentifier.of("nexmark", "events"));
      assertEquals(expected(), TableFingerprint.of(table));
    } finally {
      IcebergTableRef.close(exampleCatalog);
    }
    // What the job would wait on without a word is said before it starts (helper-61: it hung).
    assertEquals(null, NexmarkToIceberg.topicProblem(kafka.bootstrapServers(), "events"));
    String missing = NexmarkToIceberg.topicProblem(kafka.bootstrapServers(), "no-such-topic");
    assertTrue(missing != null && missing.startsWith("topic no-such-topic does not exist at "), missing);
  }

  /**
   * A catalog of {@code 'type' = 'floe-iceberg'} (Iceberg's catalog options): a table created in
   * it with plain DDL is written by floe -- its files say so in their footers -- and exactly.
   */
  @Test
  void tablesOfAFloeCatalogAreWrittenByFloe() throws Exception {
    StreamTableEnvironment sql = tables();
    sql.executeSql(
        // Named as the embedded catalog: a JDBC catalog keeps its tables under its own name.
        "CREATE CATALOG floe WITH ('type' = 'floe-iceberg', "
            + "'catalog-impl' = '" + JdbcCatalog.class.getName() + "', "
            + "'uri' = 'jdbc:sqlite:" + warehouse.toAbsolutePath().resolve("catalog.db") + "', "
            + "'warehouse' = '" + warehouse.toAbsolutePath() + "')");
    sql.executeSql(
        "CREATE TABLE floe.nexmark.catalog_q0 (" + NexmarkToIceberg.columns() + ") WITH ('format-version' = '2')");
    sql.executeSql("INSERT INTO floe.nexmark.catalog_q0 SELECT * FROM default_catalog.default_database.events").await();

    Table table = catalog.loadTable(TableIdentifier.of("nexmark", "catalog_q0"));
    assertEquals(expected(), TableFingerprint.of(table));
    DataFile file = table.currentSnapshot().addedDataFiles(table.io()).iterator().next();
    try (ParquetFileReader footer =
        ParquetFileReader.open(HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.location()), new Configuration()))) {
      String createdBy = footer.getFooter().getFileMetaData().getCreatedBy();
      assertTrue(createdBy.startsWith("floe"), createdBy);
    }
  }

  /**
   * floe upserts by the table's identifier fields; a DDL whose primary key differs would have the
   * planner send changes of another key, so the sink is refused, naming both.
   */
  @Test
  void anUpsertTableWhosePrimaryKeyIsNotItsIdentifierFieldsIsRefused() {
    catalog.createTable(TableIdentifier.of("nexmark", "keyed"),
        new org.apache.iceberg.Schema(
            List.of(
                org.apache.iceberg.types.Types.NestedField.required(1, "auction", org.apache.iceberg.types.Types.LongType.get()),
                org.apache.iceberg.types.Types.NestedField.required(2, "bids", org.apache.iceberg.types.Types.LongType.get())),
            java.util.Set.of(1)),
        org.apache.iceberg.PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
    StreamTableEnvironment sql = tables();
    sql.executeSql("CREATE TABLE keyed (auction BIGINT, bids BIGINT, PRIMARY KEY (auction, bids) NOT ENFORCED) WITH ("
        + catalogOptions("floe-iceberg", "keyed") + ", 'upsert-enabled' = 'true')");
    Exception e = assertThrows(
        Exception.class,
        () -> sql.executeSql("INSERT INTO keyed SELECT bid.auction, COUNT(*) FROM events GROUP BY bid.auction").await());
    Throwable cause = e;
    while (cause.getCause() != null && !(cause instanceof IllegalArgumentException)) {
      cause = cause.getCause();
    }
    assertTrue(cause.getMessage().contains("PRIMARY KEY is [auction, bids]"), cause.getMessage());
  }

  @Test
  void anAppendOnlyTableRefusesAnUpdatingQueryAtPlanning() {
    StreamTableEnvironment sql = tables();
    sql.executeSql(
        "CREATE TABLE counts (auction BIGINT, bids BIGINT) WITH (" + catalogOptions("floe-iceberg", "counts") + ")");
    Exception e =
        assertThrows(
            Exception.class,
            () -> sql.executeSql("INSERT INTO counts SELECT bid.auction, COUNT(*) FROM events GROUP BY bid.auction"));
    assertTrue(e.getMessage().contains("'upsert-enabled' = 'true'"), e.getMessage());
  }

  /**
   * INSERT OVERWRITE in batch mode replaces the partitions its rows fall into, the same table
   * Iceberg's connector leaves (helper-59: floe refused it), and so does every insert into a table
   * with 'overwrite-enabled'. An unpartitioned table is replaced whole; an overwrite cannot upsert.
   */
  @Test
  void insertOverwriteReplacesThePartitionsItsRowsFallIntoAsIcebergsConnectorDoes() throws Exception {
    Map<String, List<String>> byConnector = new java.util.LinkedHashMap<>();
    for (String connector : List.of("iceberg", "floe-iceberg")) {
      String name = "overwritten_" + connector.replace('-', '_');
      TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
      batch.executeSql("CREATE TABLE parts (k STRING, v BIGINT) PARTITIONED BY (k) WITH ("
          + catalogOptions(connector, name) + ", 'format-version' = '2')");
      batch.executeSql("INSERT INTO parts VALUES ('a', 1), ('a', 2), ('b', 3)").await();
      batch.executeSql("INSERT OVERWRITE parts VALUES ('a', 10)").await();
      batch.executeSql("CREATE TABLE whole (k STRING, v BIGINT) WITH ("
          + catalogOptions(connector, name + "_whole") + ", 'format-version' = '2')");
      batch.executeSql("INSERT INTO whole VALUES ('a', 1), ('b', 2)").await();
      batch.executeSql("INSERT OVERWRITE whole VALUES ('c', 3)").await();
      // the option: every INSERT INTO overwrites (helper-59: floe refused it)
      batch.executeSql("CREATE TABLE optioned (k STRING, v BIGINT) PARTITIONED BY (k) WITH ("
          + catalogOptions(connector, name + "_option") + ", 'format-version' = '2', 'overwrite-enabled' = 'true')");
      batch.executeSql("INSERT INTO optioned VALUES ('a', 1), ('a', 2), ('b', 3)").await();
      batch.executeSql("INSERT INTO optioned VALUES ('a', 10)").await();
      byConnector.put(connector, keyValues(name, List.of(name, name + "_whole", name + "_option")));
    }
    assertEquals(List.of("t:a=10", "t:b=3", "t_whole:c=3", "t_option:a=10", "t_option:b=3"), byConnector.get("floe-iceberg"));
    assertEquals(byConnector.get("iceberg"), byConnector.get("floe-iceberg"), "the same tables as Iceberg's connector");

    TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    batch.executeSql("CREATE TABLE keyed (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
        + catalogOptions("floe-iceberg", "overwrite_keyed") + ", 'format-version' = '2', 'upsert-enabled' = 'true')");
    Exception e = assertThrows(Exception.class, () -> batch.executeSql("INSERT OVERWRITE keyed VALUES ('a', 1)"));
    assertTrue(causes(e).contains("cannot upsert"), causes(e));
    batch.executeSql("CREATE TABLE keyed_option (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
        + catalogOptions("floe-iceberg", "overwrite_keyed") + ", 'upsert-enabled' = 'true', 'overwrite-enabled' = 'true')");
    Exception both = assertThrows(Exception.class, () -> batch.executeSql("INSERT INTO keyed_option VALUES ('a', 1)"));
    assertTrue(causes(both).contains("'overwrite-enabled' and 'upsert-enabled'"), causes(both));
  }

  /**
   * Where Iceberg's connector decides overwrites (helper-91): a session's 'overwrite-enabled'
   * never applies (floe's replaced rows an INSERT INTO added to), the DDL's 'false' turns an INSERT
   * OVERWRITE into an append, and an INSERT OVERWRITE in streaming mode is refused (floe's replaced
   * each checkpoint's rows with the next's). The one difference, documented: a key repeated in an
   * overwrite of a table with identifier fields fails Iceberg's job, and floe's lands both rows.
   */
  @Test
  void overwritesAreDecidedAsIcebergsConnectorDecidesThem() throws Exception {
    Map<String, List<String>> byConnector = new java.util.LinkedHashMap<>();
    for (String connector : List.of("iceberg", "floe-iceberg")) {
      String name = "decided_" + connector.replace('-', '_');
      TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
      batch.executeSql("CREATE TABLE sessioned (k STRING, v BIGINT) WITH ("
          + catalogOptions(connector, name + "_session") + ", 'format-version' = '2')");
      batch.executeSql("INSERT INTO sessioned VALUES ('a', 1), ('b', 2)").await();
      batch.getConfig().set("overwrite-enabled", "true");
      batch.executeSql("INSERT INTO sessioned VALUES ('a', 10)").await();
      batch.getConfig().set("overwrite-enabled", "false");
      batch.executeSql("CREATE TABLE declined (k STRING, v BIGINT) WITH ("
          + catalogOptions(connector, name + "_declined") + ", 'format-version' = '2', 'overwrite-enabled' = 'false')");
      batch.executeSql("INSERT INTO declined VALUES ('a', 1), ('b', 2)").await();
      batch.executeSql("INSERT OVERWRITE declined VALUES ('a', 10)").await();
      batch.executeSql("CREATE TABLE keyed (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
          + catalogOptions(connector, name + "_keyed") + ", 'format-version' = '2')");
      batch.executeSql("INSERT OVERWRITE keyed VALUES ('a', 1), ('b', 2)").await();
      batch.executeSql("CREATE TABLE repeated (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
          + catalogOptions(connector, name + "_repeated") + ", 'format-version' = '2')");
      if (connector.equals("iceberg")) {
        Exception repeated = assertThrows(Exception.class,
            () -> batch.executeSql("INSERT OVERWRITE repeated VALUES ('a', 11), ('a', 12)").await());
        assertTrue(causes(repeated).contains("Cannot overwrite partitions with delete files"), causes(repeated));
      } else {
        batch.executeSql("INSERT OVERWRITE repeated VALUES ('a', 11), ('a', 12)").await();
        assertEquals(2, countRows(name + "_repeated"), "an overwrite appends its rows as given");
      }
      StreamTableEnvironment streaming = StreamTableEnvironment.create(environment(0));
      streaming.executeSql("CREATE TABLE streamed (k STRING, v BIGINT) WITH ("
          + catalogOptions(connector, name + "_keyed") + ")");
      Exception unbounded = assertThrows(Exception.class,
          () -> streaming.executeSql("INSERT OVERWRITE streamed VALUES ('z', 26)"), connector);
      assertTrue(causes(unbounded).contains(connector.equals("iceberg") ? "Unbounded data stream" : "needs batch mode"),
          causes(unbounded));
      byConnector.put(connector, keyValues(name, List.of(name + "_session", name + "_declined", name + "_keyed")));
    }
    assertEquals(List.of("t_declined:a=1", "t_declined:a=10", "t_declined:b=2", "t_keyed:a=1", "t_keyed:b=2",
        "t_session:a=1", "t_session:a=10", "t_session:b=2"), byConnector.get("floe-iceberg").stream().sorted().toList());
    assertEquals(byConnector.get("iceberg"), byConnector.get("floe-iceberg"), "the same tables as Iceberg's connector");
  }

  /** The tables' rows as {@code table:k=v}, sorted per table, each table named with {@code prefix} as {@code t}. */
  private static List<String> keyValues(String prefix, List<String> tables) throws Exception {
    List<String> rows = new ArrayList<>();
    for (String table : tables) {
      try (CloseableIterable<Record> read = IcebergGenerics.read(catalog.loadTable(TableIdentifier.of("nexmark", table))).build()) {
        StreamSupport.stream(read.spliterator(), false).map(r -> table.replace(prefix, "t") + ":" + r.getField("k") + "="
            + r.getField("v")).sorted().forEach(rows::add);
      }
    }
    return rows;
  }

  private static long countRows(String table) throws Exception {
    try (CloseableIterable<Record> read = IcebergGenerics.read(catalog.loadTable(TableIdentifier.of("nexmark", table))).build()) {
      return StreamSupport.stream(read.spliterator(), false).count();
    }
  }

  /**
   * 'range' distribution, asked for by the DDL or by the table's property (as Spark users set it), is
   * written as 'hash', as the DataStream builder takes it: the same rows (helper-91: refused).
   */
  @Test
  void rangeDistributionIsWrittenAsHash() throws Exception {
    TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    batch.executeSql("CREATE TABLE ranged (k STRING, v BIGINT) PARTITIONED BY (k) WITH ("
        + catalogOptions("floe-iceberg", "ranged") + ", 'format-version' = '2', 'write.distribution-mode' = 'range')");
    batch.executeSql("INSERT INTO ranged VALUES ('a', 1), ('b', 2), ('a', 3)").await();
    batch.executeSql("CREATE TABLE ranged_option (k STRING, v BIGINT) PARTITIONED BY (k) WITH ("
        + catalogOptions("floe-iceberg", "ranged") + ", 'distribution-mode' = 'range')");
    batch.executeSql("INSERT INTO ranged_option VALUES ('c', 4)").await();
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> read = IcebergGenerics.read(catalog.loadTable(TableIdentifier.of("nexmark", "ranged")))
        .build()) {
      StreamSupport.stream(read.spliterator(), false).map(r -> r.getField("k") + "=" + r.getField("v")).sorted().forEach(rows::add);
    }
    assertEquals(List.of("a=1", "a=3", "b=2", "c=4"), rows);
  }

  /**
   * A table the connector creates takes the DDL's location in any case, as Iceberg's connector's
   * does (helper-91: 'Location' became a table property); neither keeps the DDL's comment (1.11).
   */
  @Test
  void aCreatedTableTakesTheDdlsLocationAsIcebergsConnectorDoes() throws Exception {
    for (String connector : List.of("iceberg", "floe-iceberg")) {
      String name = "placed_" + connector.replace('-', '_');
      Path location = warehouse.resolve("elsewhere").resolve(name).toAbsolutePath();
      TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
      batch.executeSql("CREATE TABLE placed (k STRING) COMMENT 'the placed table' WITH ("
          + catalogOptions(connector, name) + ", 'format-version' = '2', 'Location' = '" + location + "')");
      batch.executeSql("INSERT INTO placed VALUES ('a')").await();
      org.apache.iceberg.Table table = catalog.loadTable(TableIdentifier.of("nexmark", name));
      assertTrue(table.location().endsWith(location.toString()), connector + ": " + table.location());
      assertFalse(table.properties().containsKey("comment"), connector + ": " + table.properties());
      assertFalse(table.properties().containsKey("Location"), connector + ": " + table.properties());
    }
  }

  /**
   * Outside upsert mode a DDL primary key is not used (Iceberg's connector drops it too; the table's
   * identifier fields decide): inserts into a table without identifier fields are appended under
   * any declared key. Found in review: the key was refused in every mode for a while.
   */
  @Test
  void aDdlPrimaryKeyOutsideUpsertModeIsNotUsed() throws Exception {
    createAuctionPriceTable("unkeyed");
    StreamTableEnvironment sql = tables();
    sql.executeSql("CREATE TABLE declared (auction BIGINT, price BIGINT, PRIMARY KEY (auction) NOT ENFORCED) WITH ("
        + catalogOptions("floe-iceberg", "unkeyed") + ")");
    sql.executeSql("INSERT INTO declared VALUES (1, 10), (1, 11), (2, 20)").await();
    Table table = catalog.loadTable(TableIdentifier.of("nexmark", "unkeyed"));
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      assertEquals(3, StreamSupport.stream(rows.spliterator(), false).count());
    }
  }

  /**
   * {@code 'write-format' = 'parquet'} on a table whose default format is ORC writes Parquet, as
   * Iceberg's connector does. Before, planning accepted it and every writer refused the table's ORC.
   */
  @Test
  void theWriteFormatOptionWinsOverTheTablesDefaultFormat() throws Exception {
    createAuctionPriceTable("orc_default");
    catalog.loadTable(TableIdentifier.of("nexmark", "orc_default")).updateProperties()
        .set(org.apache.iceberg.TableProperties.DEFAULT_FILE_FORMAT, "orc").commit();
    StreamTableEnvironment sql = tables();
    sql.executeSql("CREATE TABLE as_parquet (auction BIGINT, price BIGINT) WITH ("
        + catalogOptions("floe-iceberg", "orc_default") + ", 'write-format' = 'parquet')");
    sql.executeSql("INSERT INTO as_parquet VALUES (1, 10), (2, 20)").await();
    Table table = catalog.loadTable(TableIdentifier.of("nexmark", "orc_default"));
    assertEquals(Map.of(1L, 10L, 2L, 20L), pricePerAuction(table));
    for (org.apache.iceberg.FileScanTask task : table.newScan().planFiles()) {
      assertEquals(org.apache.iceberg.FileFormat.PARQUET, task.file().format());
    }
  }

  /** Auction id -> price, read back from a table of (auction, price) rows. */
  private static Map<Long, Long> pricePerAuction(Table table) throws IOException {
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      return StreamSupport.stream(rows.spliterator(), false)
          .collect(Collectors.toMap(r -> (Long) r.getField("auction"), r -> (Long) r.getField("price"), (a, b) -> -1L,
              TreeMap::new));
    }
  }

  /** An unpartitioned v2 table {@code nexmark.<name>} of optional (auction long, price long), no identifier fields. */
  private void createAuctionPriceTable(String name) {
    catalog.createTable(TableIdentifier.of("nexmark", name),
        new org.apache.iceberg.Schema(
            org.apache.iceberg.types.Types.NestedField.optional(1, "auction", org.apache.iceberg.types.Types.LongType.get()),
            org.apache.iceberg.types.Types.NestedField.optional(2, "price", org.apache.iceberg.types.Types.LongType.get())),
        org.apache.iceberg.PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
  }

  /**
   * A DDL that declares a column the table lacks, or a type its column does not take, is refused
   * when the query is planned, naming the column, as Iceberg's connector refuses it. Before, the
   * job was submitted and failed when its writers started.
   */
  @Test
  void aDdlColumnTheTableCannotTakeIsRefusedAtPlanning() {
    createAuctionPriceTable("narrow");
    StreamTableEnvironment sql = tables();
    sql.executeSql("CREATE TABLE wider (auction BIGINT, price BIGINT, extra STRING) WITH ("
        + catalogOptions("floe-iceberg", "narrow") + ")");
    Exception e = assertThrows(Exception.class, () -> sql.executeSql("INSERT INTO wider VALUES (1, 10, 'x')"));
    assertTrue(causes(e).contains("field 'extra' that the table lacks"), causes(e));

    sql.executeSql("CREATE TABLE retyped (auction BIGINT, price STRING) WITH ("
        + catalogOptions("floe-iceberg", "narrow") + ")");
    e = assertThrows(Exception.class, () -> sql.executeSql("INSERT INTO retyped VALUES (1, 'ten')"));
    assertTrue(causes(e).contains("column 'price' is long"), causes(e));
  }

  /**
   * Within a type's kind, what Iceberg's connector refuses at planning floe refuses too (helper-59):
   * TIMESTAMP(9) into a microsecond column (before: written with its nanoseconds cut), VARBINARY
   * into fixed[4], and a column that may be null into a required one (before: written until the
   * first null failed the job).
   */
  @Test
  void whatItsColumnWouldCutOrFailOnLaterIsRefusedAtPlanning() throws Exception {
    catalog.createTable(TableIdentifier.of("nexmark", "typed"),
        new org.apache.iceberg.Schema(
            org.apache.iceberg.types.Types.NestedField.required(1, "id", org.apache.iceberg.types.Types.LongType.get()),
            org.apache.iceberg.types.Types.NestedField.optional(2, "ts",
                org.apache.iceberg.types.Types.TimestampType.withoutZone()),
            org.apache.iceberg.types.Types.NestedField.optional(3, "f", org.apache.iceberg.types.Types.FixedType.ofLength(4))),
        org.apache.iceberg.PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
    StreamTableEnvironment sql = tables();
    sql.executeSql("CREATE TABLE nanos (id BIGINT NOT NULL, ts TIMESTAMP(9)) WITH ("
        + catalogOptions("floe-iceberg", "typed") + ")");
    Exception e = assertThrows(Exception.class,
        () -> sql.executeSql("INSERT INTO nanos VALUES (CAST(1 AS BIGINT), TIMESTAMP '2024-01-01 00:00:00.123456789')"));
    assertTrue(causes(e).contains("column 'ts' is timestamp (microseconds) but the rows hold TIMESTAMP(9)"), causes(e));

    sql.executeSql("CREATE TABLE wide_binary (id BIGINT NOT NULL, f VARBINARY(10)) WITH ("
        + catalogOptions("floe-iceberg", "typed") + ")");
    e = assertThrows(Exception.class, () -> sql.executeSql("INSERT INTO wide_binary VALUES (CAST(1 AS BIGINT), X'0102')"));
    assertTrue(causes(e).contains("only BINARY(4) fits it"), causes(e));

    sql.executeSql("CREATE TABLE nullable (id BIGINT, ts TIMESTAMP(6)) WITH (" + catalogOptions("floe-iceberg", "typed") + ")");
    e = assertThrows(Exception.class,
        () -> sql.executeSql("INSERT INTO nullable VALUES (CAST(1 AS BIGINT), TIMESTAMP '2024-01-01 00:00:00')"));
    assertTrue(causes(e).contains("column 'id' is required but the rows' BIGINT may be null"), causes(e));
  }

  /**
   * A table the connector creates keeps the DDL's options but {@code connector}, which Iceberg's
   * catalogs refuse to load a table by (their reserved keys): before, the table could no longer be
   * read or written through a {@code 'type' = 'iceberg'} catalog.
   */
  @Test
  void aTableTheConnectorCreatesIsReadableThroughIcebergsCatalog() throws Exception {
    StreamTableEnvironment sql = tables();
    sql.executeSql("CREATE TABLE created (auction BIGINT, price BIGINT) WITH ("
        + catalogOptions("floe-iceberg", "created") + ", 'write.parquet.row-group-size-bytes' = '1048576')");
    sql.executeSql("INSERT INTO created VALUES (1, 10), (2, 20)").await();
    Map<String, String> properties = catalog.loadTable(TableIdentifier.of("nexmark", "created")).properties();
    assertEquals(null, properties.get("connector"));
    assertEquals("1048576", properties.get("write.parquet.row-group-size-bytes"), "the DDL's options are kept");
    // Named as the embedded catalog: a JDBC catalog keeps its tables under its own name.
    sql.executeSql("CREATE CATALOG floe WITH ('type' = 'iceberg', 'catalog-impl' = '" + JdbcCatalog.class.getName()
        + "', 'uri' = 'jdbc:sqlite:" + warehouse.toAbsolutePath().resolve("catalog.db") + "', 'warehouse' = '"
        + warehouse.toAbsolutePath() + "')");
    List<String> columns = new java.util.ArrayList<>();
    sql.executeSql("DESCRIBE floe.nexmark.created").collect().forEachRemaining(row -> columns.add((String) row.getField(0)));
    assertEquals(List.of("auction", "price"), columns);
  }

  /**
   * Options of Iceberg's connector that floe does not carry out are refused by name at planning,
   * never ignored: each would have given a different table (an append for an overwrite, a computed
   * column written as data) or no maintenance where the user asked for it.
   */
  @Test
  void optionsFloeDoesNotCarryOutAreRefusedByName() {
    StreamTableEnvironment sql = tables();
    Map<String, String> refused = Map.of(
        "'flink-maintenance.rewrite.enabled' = 'true'", "flink-maintenance",
        "'flink-maintenance.expire-snapshots.enabled' = 'true'", "floe.expire-snapshots.interval",
        "'table-refresh-interval' = '1 min'", "table-refresh-interval",
        "'use-dynamic-iceberg-sink' = 'true'", "use-dynamic-iceberg-sink");
    int n = 0;
    for (Map.Entry<String, String> option : refused.entrySet()) {
      String table = "refused_" + n++;
      sql.executeSql("CREATE TABLE " + table + " (auction BIGINT, price BIGINT) WITH ("
          + catalogOptions("floe-iceberg", table) + ", " + option.getKey() + ")");
      Exception e = assertThrows(Exception.class, () -> sql.executeSql("INSERT INTO " + table + " VALUES (1, 10)").await());
      assertTrue(causes(e).contains(option.getValue()), option.getKey() + ": " + causes(e));
    }
    // CREATE TABLE ... LIKE a table of an Iceberg catalog gives 'src-catalog' where 'catalog-name' was
    sql.executeSql("CREATE TABLE liked (auction BIGINT, price BIGINT) WITH ('connector' = 'floe-iceberg', "
        + "'src-catalog' = 'lake')");
    Exception liked = assertThrows(Exception.class, () -> sql.executeSql("INSERT INTO liked VALUES (1, 10)").await());
    assertTrue(causes(liked).contains("does not read 'src-catalog'"), causes(liked));
    sql.executeSql("CREATE TABLE computed (auction BIGINT, price BIGINT, doubled AS price * 2) WITH ("
        + catalogOptions("floe-iceberg", "computed") + ")");
    Exception e = assertThrows(Exception.class, () -> sql.executeSql("INSERT INTO computed VALUES (1, 10)").await());
    assertTrue(causes(e).contains("computed columns is not supported"), causes(e));
    assertEquals(false, catalog.tableExists(TableIdentifier.of("nexmark", "computed")), "no table with the computed column");
  }

  private static String causes(Throwable t) {
    StringBuilder out = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      out.append(c.getMessage()).append(" <- ");
    }
    return out.toString();
  }
}
