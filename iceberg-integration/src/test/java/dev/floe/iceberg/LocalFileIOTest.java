package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.Test;

/**
 * The embedded catalog's {@link LocalFileIO}: tables it writes are read back exactly by Iceberg's
 * generic reader through Hadoop's file system too, nothing but the tables' own files is written,
 * and its files behave as Iceberg's commit protocol and readers expect.
 */
class LocalFileIOTest extends EmbeddedCatalogTest {
  @Test
  void theEmbeddedCatalogWritesOnlyTheTablesFilesAndHadoopsFileIoReadsThemBack() throws IOException {
    Table table = catalog.createTable(
        TableIdentifier.of("db", "local_io"),
        NativeIcebergWriteTest.SCHEMA,
        PartitionSpec.builderFor(NativeIcebergWriteTest.SCHEMA).bucket("id", 2).build(),
        Map.of(TableProperties.FORMAT_VERSION, "2"));
    assertInstanceOf(LocalFileIO.class, table.io());
    List<Record> rows = new RandomRows(11).records(NativeIcebergWriteTest.SCHEMA, 900);
    for (int commit = 0; commit < 3; commit++) {
      List<Record> part = rows.subList(commit * 300, (commit + 1) * 300);
      Commits.append(table, RandomRows.writeWithFloe(table, part, allocator), Map.of());
    }

    List<Path> written;
    try (Stream<Path> files = Files.walk(warehouse)) {
      written = files.filter(Files::isRegularFile).toList();
    }
    assertTrue(written.stream().noneMatch(f -> f.getFileName().toString().endsWith(".crc")), written.toString());
    assertEquals(4, written.stream().filter(f -> f.toString().endsWith(".metadata.json")).count(), written.toString());
    assertEquals(NativeIcebergWriteTest.multiset(rows), NativeIcebergWriteTest.multiset(readAll("local_io")));

    // The same catalog database opened with Iceberg's default (Hadoop) FileIO reads the same rows.
    Map<String, String> hadoop = new HashMap<>(Catalogs.embeddedProperties(warehouse));
    hadoop.remove(CatalogProperties.FILE_IO_IMPL);
    Catalog other = Catalogs.load(Catalogs.EMBEDDED_NAME, hadoop); // the JDBC catalog keys tables by its name
    try {
      List<Record> read = new ArrayList<>();
      try (CloseableIterable<Record> it =
          IcebergGenerics.read(other.loadTable(TableIdentifier.of("db", "local_io"))).build()) {
        it.forEach(r -> read.add(r.copy()));
      }
      assertEquals(NativeIcebergWriteTest.multiset(rows), NativeIcebergWriteTest.multiset(read));
    } finally {
      ((java.io.Closeable) other).close();
    }
  }

  @Test
  void theEmbeddedCatalogKeepsItsDatabaseInWriteAheadLogMode() throws Exception {
    catalog.createTable(TableIdentifier.of("db", "wal"), NativeIcebergWriteTest.SCHEMA);
    try (java.sql.Connection db = java.sql.DriverManager.getConnection(
            Catalogs.embeddedProperties(warehouse).get(CatalogProperties.URI));
        java.sql.ResultSet mode = db.createStatement().executeQuery("PRAGMA journal_mode")) {
      assertTrue(mode.next());
      assertEquals("wal", mode.getString(1));
    }
  }

  @Test
  void droppingATableWithPurgeDeletesItsFiles() throws IOException {
    Table table = catalog.createTable(TableIdentifier.of("db", "purged"), NativeIcebergWriteTest.SCHEMA);
    Commits.append(table, RandomRows.writeWithFloe(
        table, new RandomRows(3).records(NativeIcebergWriteTest.SCHEMA, 50), allocator), Map.of());
    Path location = LocalFileIO.path(table.location());
    try (Stream<Path> files = Files.walk(location)) {
      assertTrue(files.anyMatch(f -> f.toString().endsWith(".parquet")));
    }

    assertTrue(catalog.dropTable(TableIdentifier.of("db", "purged"), true));

    try (Stream<Path> files = Files.walk(location)) {
      assertEquals(List.of(), files.filter(Files::isRegularFile).toList());
    }
  }

  @Test
  void createRefusesAnExistingFileAndOverwriteReplacesIt() throws IOException {
    LocalFileIO io = new LocalFileIO();
    String location = warehouse.resolve("new/dir/file.bin").toString();
    OutputFile out = io.newOutputFile(location);
    write(out.create(), "first");
    assertThrows(AlreadyExistsException.class, out::create);
    assertEquals("first", Files.readString(Path.of(location)));

    write(out.createOrOverwrite(), "2nd");
    assertEquals("2nd", Files.readString(Path.of(location)));
    assertEquals(3, out.toInputFile().getLength());
  }

  @Test
  void aMissingFileIsNotFoundAndDeletingItIsNoError() {
    LocalFileIO io = new LocalFileIO();
    InputFile missing = io.newInputFile(warehouse.resolve("missing.json").toString());
    assertFalse(missing.exists());
    assertThrows(NotFoundException.class, missing::newStream);
    assertThrows(NotFoundException.class, missing::getLength);
    io.deleteFile(missing.location());
  }

  @Test
  void streamsSeekAndReadRanges() throws IOException {
    byte[] bytes = new byte[200_000]; // larger than the output buffer
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) (i * 31 + 7);
    }
    LocalFileIO io = new LocalFileIO();
    String location = "file://" + warehouse.resolve("data.bin");
    try (PositionOutputStream out = io.newOutputFile(location).create()) {
      out.write(bytes, 0, 10);
      assertEquals(10, out.getPos());
      out.write(bytes[10]);
      out.write(bytes, 11, bytes.length - 11);
      assertEquals(bytes.length, out.getPos());
    }
    InputFile in = io.newInputFile(location);
    assertEquals(bytes.length, in.getLength());
    try (SeekableInputStream stream = in.newStream()) {
      stream.seek(150_000);
      assertEquals(bytes[150_000] & 0xff, stream.read());
      assertEquals(150_001, stream.getPos());
      byte[] part = new byte[100];
      assertEquals(100, stream.read(part, 0, 100));
      assertArrayEquals(java.util.Arrays.copyOfRange(bytes, 150_001, 150_101), part);

      RangeReadable ranges = (RangeReadable) stream;
      byte[] tail = new byte[8];
      assertEquals(8, ranges.readTail(tail, 0, 8));
      assertArrayEquals(java.util.Arrays.copyOfRange(bytes, bytes.length - 8, bytes.length), tail);
      ranges.readFully(5, part, 0, 100);
      assertArrayEquals(java.util.Arrays.copyOfRange(bytes, 5, 105), part);
      assertEquals(150_101, stream.getPos(), "positioned reads leave the stream where it was");
      assertThrows(java.io.EOFException.class, () -> ranges.readFully(bytes.length - 4, part, 0, 8));

      stream.seek(bytes.length);
      assertEquals(-1, stream.read());

      // Byte by byte and in odd-sized pieces, across the read-ahead buffer's edges.
      stream.seek(0);
      byte[] again = new byte[bytes.length];
      for (int i = 0; i < 20_000; i++) {
        again[i] = (byte) stream.read();
      }
      int at = 20_000;
      while (at < bytes.length) {
        int n = stream.read(again, at, Math.min(3_001, bytes.length - at));
        assertTrue(n > 0);
        at += n;
      }
      assertArrayEquals(bytes, again);
      assertEquals(-1, stream.read(part, 0, 10));
      stream.seek(7);
      assertEquals(bytes[7] & 0xff, stream.read(), "a seek back into the buffer reads from there");
    }
  }

  @Test
  void locationsAreLocalPathsOrFileUris() {
    Path p = warehouse.resolve("t/metadata/v1.json").toAbsolutePath();
    assertEquals(p, LocalFileIO.path(p.toString()));
    assertEquals(p, LocalFileIO.path("file:" + p));
    assertEquals(p, LocalFileIO.path("file://" + p));
    assertEquals(p, LocalFileIO.path("file://localhost" + p));
    IllegalArgumentException s3 = assertThrows(IllegalArgumentException.class, () -> LocalFileIO.path("s3://bucket/t/v1.json"));
    assertTrue(s3.getMessage().contains("s3://bucket/t/v1.json"), s3.getMessage());
    assertThrows(IllegalArgumentException.class, () -> LocalFileIO.path("file://otherhost/t/v1.json"));
  }

  @Test
  void prefixesListAndDeleteEverythingUnderThem() throws IOException {
    LocalFileIO io = new LocalFileIO();
    Path root = warehouse.resolve("prefix");
    for (String name : List.of("a.bin", "sub/b.bin", "sub/deeper/c.bin")) {
      write(io.newOutputFile(root.resolve(name).toString()).create(), name);
    }
    List<String> listed = new ArrayList<>();
    for (FileInfo info : io.listPrefix(root.toString())) {
      listed.add(warehouse.relativize(Path.of(info.location())) + ":" + info.size());
    }
    listed.sort(null);
    assertEquals(List.of("prefix/a.bin:5", "prefix/sub/b.bin:9", "prefix/sub/deeper/c.bin:16"), listed);

    FileInfo one = io.listPrefix(root.resolve("a.bin").toString()).iterator().next();
    assertEquals(root.resolve("a.bin").toString(), one.location());

    io.deletePrefix(root.toString());
    assertFalse(Files.exists(root));
    assertEquals(List.of(), io.listPrefix(root.toString()));
  }

  private static void write(PositionOutputStream out, String text) throws IOException {
    try (OutputStream o = out) {
      o.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }
}
