package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.iceberg.rest.LoopbackRestCatalogServer;
import dev.floe.iceberg.s3.LoopbackS3Server;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * floe writes through an Iceberg REST catalog into an S3-compatible store, both running on
 * loopback: the REST client is built from properties by {@link Catalogs#load}, data files go to
 * s3proxy through {@link S3FileIO}, commits go through the REST server to a JDBC catalog whose
 * metadata also lives in the store. Iceberg's generic reader reads the rows back through the REST
 * catalog.
 */
class RestCatalogS3RoundTripTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "amount", Types.DecimalType.of(9, 2)),
          Types.NestedField.optional(4, "ratio", Types.DoubleType.get()),
          Types.NestedField.optional(5, "day", Types.DateType.get()),
          Types.NestedField.optional(6, "at", Types.TimestampType.withZone()),
          Types.NestedField.optional(7, "payload", Types.BinaryType.get()),
          Types.NestedField.optional(8, "tags", Types.ListType.ofOptional(9, Types.StringType.get())));
  private static final Namespace NAMESPACE = Namespace.of("sales");
  private static final String BUCKET = "floe-warehouse";

  @TempDir Path tmp;
  private LoopbackS3Server s3;
  private Catalog backing;
  private LoopbackRestCatalogServer rest;
  private final List<Catalog> clients = new ArrayList<>();
  private BufferAllocator allocator;

  @BeforeEach
  void setUp() throws Exception {
    s3 = LoopbackS3Server.start(tmp.resolve("s3"), BUCKET);
    // The server's side: Iceberg's JDBC catalog on SQLite, metadata and data in the S3 store.
    backing = Catalogs.load("backing", s3.jdbcCatalogProperties(tmp.resolve("catalog.db")));
    rest = LoopbackRestCatalogServer.start(backing);
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (Catalog client : clients) {
      ((AutoCloseable) client).close();
    }
    if (rest != null) {
      rest.close();
    }
    if (backing instanceof AutoCloseable c) {
      c.close();
    }
    if (s3 != null) {
      s3.close();
    }
    if (allocator != null) {
      allocator.close();
    }
  }

  /** A REST catalog client as a user configures one: properties only. */
  private Catalog restClient() {
    Map<String, String> props = new HashMap<>(s3.fileIoProperties());
    props.put("type", "rest");
    props.put("uri", rest.uri().toString());
    Catalog client = Catalogs.load("rest", props);
    clients.add(client);
    return client;
  }

  private Table createTable(Catalog client, String name) {
    ((SupportsNamespaces) client).createNamespace(NAMESPACE);
    return client.createTable(
        TableIdentifier.of(NAMESPACE, name),
        SCHEMA,
        PartitionSpec.unpartitioned(),
        Map.of(TableProperties.FORMAT_VERSION, "2"));
  }

  /** Random rows with ids {@code firstId...}, so that rows can be matched one to one. */
  private static List<Record> rows(long seed, long firstId, int count) {
    List<Record> rows = new RandomRows(seed).records(SCHEMA, count);
    for (int i = 0; i < count; i++) {
      rows.get(i).setField("id", firstId + i);
    }
    return rows;
  }

  /** floe: the rows as JSON messages, decoded and written natively; files not yet committed. */
  private WriteResult writeWithFloe(Table table, List<Record> rows) {
    return RandomRows.writeWithFloe(table, rows, allocator);
  }

  private static Map<Long, Record> readById(Table table) throws IOException {
    Map<Long, Record> out = new TreeMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record row : rows) {
        Record previous = out.put((Long) row.getField("id"), row.copy());
        assertNull(previous, "id " + row.getField("id") + " read twice");
      }
    }
    return out;
  }

  private static Map<Long, Record> byId(List<Record> rows) {
    Map<Long, Record> out = new TreeMap<>();
    rows.forEach(r -> out.put((Long) r.getField("id"), r));
    return out;
  }

  @Test
  void floeRowsRoundTripThroughTheRestCatalogAndTheS3Store() throws IOException {
    Catalog client = restClient();
    TableIdentifier id = TableIdentifier.of(NAMESPACE, "orders");
    Table table = createTable(client, "orders");
    assertInstanceOf(S3FileIO.class, table.io(), "the client's table writes through S3FileIO");
    assertTrue(table.location().startsWith(s3.location("warehouse/")), table.location());

    List<Record> first = rows(11, 0, 700);
    List<Record> second = rows(12, 700, 300);
    WriteResult firstFiles = writeWithFloe(table, first);
    Snapshot s1 = Commits.append(table, firstFiles, Map.of("floe.batch", "1"));
    WriteResult secondFiles = writeWithFloe(table, second);
    Snapshot s2 = Commits.append(table, secondFiles, Map.of("floe.batch", "2"));

    // Read back through a fresh client: nothing comes from the writer's cached metadata.
    Table loaded = restClient().loadTable(id);
    List<Record> all = new ArrayList<>(first);
    all.addAll(second);
    assertEquals(byId(all), readById(loaded), "every value as written");

    // Two snapshots, each with its summary property, the second on top of the first.
    List<Snapshot> snapshots = new ArrayList<>();
    loaded.snapshots().forEach(snapshots::add);
    assertEquals(2, snapshots.size());
    assertEquals(s2.snapshotId(), loaded.currentSnapshot().snapshotId());
    assertEquals(s1.snapshotId(), loaded.currentSnapshot().parentId());
    assertEquals("2", loaded.currentSnapshot().summary().get("floe.batch"));
    assertEquals("300", loaded.currentSnapshot().summary().get("added-records"));
    assertEquals("1", loaded.snapshot(s1.snapshotId()).summary().get("floe.batch"));
    assertEquals("700", loaded.snapshot(s1.snapshotId()).summary().get("added-records"));

    // The files are objects in the store, of the size the data files declare, and the table's
    // metadata file (written by the server's catalog) is there too.
    Map<String, Long> objects = s3.objects();
    List<DataFile> files = new ArrayList<>(List.of(firstFiles.dataFiles()));
    files.addAll(List.of(secondFiles.dataFiles()));
    for (DataFile file : files) {
      assertTrue(objects.containsKey(file.location()), file.location() + " in the bucket " + objects.keySet());
      assertEquals(file.fileSizeInBytes(), (long) objects.get(file.location()), file.location());
    }
    String metadata = ((HasTableOperations) backing.loadTable(id)).operations().current().metadataFileLocation();
    assertTrue(objects.containsKey(metadata), metadata + " in the bucket");
    assertEquals(s2.snapshotId(), backing.loadTable(id).currentSnapshot().snapshotId(), "the server's catalog agrees");
  }

  @Test
  void aCommitThatLostTheRaceIsRetriedAfterTheServersConflict() throws IOException {
    TableIdentifier id = TableIdentifier.of(NAMESPACE, "events");
    createTable(restClient(), "events");
    // Two writers, each with its own client, load the same (empty) table and write files.
    Table a = restClient().loadTable(id);
    Table b = restClient().loadTable(id);
    List<Record> rowsA = rows(21, 0, 400);
    List<Record> rowsB = rows(22, 1000, 250);
    WriteResult filesA = writeWithFloe(a, rowsA);
    WriteResult filesB = writeWithFloe(b, rowsB);

    // a commits right between b's refresh and b's commit, as a racing writer would: b's commit
    // asserts that main is still empty, the server answers 409, and Iceberg's client refreshes,
    // re-applies the append on top of a's snapshot and commits again.
    AtomicReference<Snapshot> fromA = new AtomicReference<>();
    rest.beforeNextCommit(id, () -> fromA.set(Commits.append(a, filesA, Map.of("floe.writer", "a"))));
    int conflictsBefore = rest.responsesWithStatus(409);
    Snapshot fromB = Commits.append(b, filesB, Map.of("floe.writer", "b"));
    assertEquals(conflictsBefore + 1, rest.responsesWithStatus(409), "the server reported one conflict");
    assertNotNull(fromA.get(), "a committed while b's commit was in flight");
    assertEquals(fromA.get().snapshotId(), fromB.parentId(), "b's commit landed on top of a's");

    Table loaded = restClient().loadTable(id);
    assertEquals(fromB.snapshotId(), loaded.currentSnapshot().snapshotId());
    assertEquals("b", loaded.currentSnapshot().summary().get("floe.writer"));
    assertEquals("a", loaded.snapshot(fromA.get().snapshotId()).summary().get("floe.writer"));
    List<Record> all = new ArrayList<>(rowsA);
    all.addAll(rowsB);
    assertEquals(byId(all), readById(loaded), "both writers' rows");
  }

  @Test
  void restErrorsReachTheClientAsIcebergExceptions() {
    Catalog client = restClient();
    createTable(client, "present");
    TableIdentifier missing = TableIdentifier.of(NAMESPACE, "missing");

    assertThrows(NoSuchTableException.class, () -> client.loadTable(missing));
    assertFalse(client.tableExists(missing));
    assertTrue(client.tableExists(TableIdentifier.of(NAMESPACE, "present")));
    assertThrows(
        AlreadyExistsException.class,
        () -> client.createTable(TableIdentifier.of(NAMESPACE, "present"), SCHEMA));
    assertTrue(client.dropTable(TableIdentifier.of(NAMESPACE, "present"), false));
    assertFalse(client.tableExists(TableIdentifier.of(NAMESPACE, "present")));
    assertInstanceOf(RESTCatalog.class, client);
    assertTrue(rest.responsesWithStatus(404) >= 3, "404s for the missing tables");
  }
}
