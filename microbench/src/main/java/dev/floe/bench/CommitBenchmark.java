package dev.floe.bench;

import dev.floe.iceberg.Catalogs;
import dev.floe.iceberg.SnapshotExpiry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One Iceberg commit in floe's embedded catalog (JDBC on SQLite, a local warehouse), by the
 * catalog's {@code FileIO}: {@code local}, floe's {@code LocalFileIO} (java.nio, the embedded
 * catalog's default), against {@code hadoop}, Iceberg's default {@code HadoopFileIO} on Hadoop's
 * local file system ({@code .crc} side files, a {@code chmod} process per file and directory
 * created without Hadoop's native library); and by SQLite's journal: {@code wal}, the embedded
 * catalog's write-ahead log (synchronous NORMAL), against {@code delete}, SQLite's default
 * rollback journal (synchronous FULL). Each operation is a fast append of one data file
 * (the file itself is not read, so it need not exist): a manifest, a manifest list and a
 * metadata file written, the catalog row swapped, the new metadata read back. A fresh table per
 * iteration, so the metadata grows only within an iteration, alike for both.
 *
 * <p>{@code history} (default 0) measures what a table's past costs each commit: with {@code -p
 * history=N}, one table per trial starts with N snapshots (made in transactions of 200) and every
 * iteration commits on top of it, so the metadata file every commit rewrites holds N snapshots
 * and more. A sink committing every 10 s adds 8,640 snapshots a day until they are expired. Use
 * {@code -p append=merge} with it: floe's sinks commit with Iceberg's merging append, which keeps
 * the manifests few, where fast appends would add one manifest per commit to every manifest list.
 *
 * <p>{@code expire} (default 0, never) is a sink expiring snapshots as it commits ({@code
 * expire.snapshots.every}): every {@code expire}-th commit is followed by {@link
 * SnapshotExpiry#expire}, the table keeping its last 200 snapshots ({@code
 * history.expire.min-snapshots-to-keep}; any older one is due). Its time counts in the commits'
 * average. With {@code history}, the first expiry removes the past at once (in the warmup).
 *
 * <p>Every sink commits this way once per cycle (the Kafka sink, the Connect task, the Flink
 * committer at each checkpoint), so this is the FileIO's share of a commit's latency.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
    "-Dorg.slf4j.simpleLogger.log.org.apache.iceberg.jdbc.JdbcCatalog=error"})
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class CommitBenchmark {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final Namespace NAMESPACE = Namespace.of("bench");

  @Param({"local", "hadoop"})
  public String io;

  @Param({"wal", "delete"})
  public String journal;

  @Param({"0"})
  public int history;

  /** {@code fast}: Iceberg's fast append; {@code merge}: its merging append, as floe's sinks commit. */
  @Param({"fast"})
  public String append;

  /** Expire snapshots after every this many commits (0: never), keeping the last 200. */
  @Param({"0"})
  public int expire;

  private long commits;

  private Path dir;
  private Catalog catalog;
  private Table table;
  private int tables;
  private long files;

  @Setup(Level.Trial)
  public void openCatalog() throws IOException {
    dir = Files.createTempDirectory("floe-commits-");
    Map<String, String> properties = new HashMap<>(Catalogs.embeddedProperties(dir));
    if (io.equals("hadoop")) {
      properties.remove(CatalogProperties.FILE_IO_IMPL);
    } else if (!io.equals("local")) {
      throw new IllegalArgumentException("io must be local or hadoop, not " + io);
    }
    if (journal.equals("delete")) {
      properties.keySet().removeIf(key -> key.startsWith("jdbc."));
    } else if (!journal.equals("wal")) {
      throw new IllegalArgumentException("journal must be wal or delete, not " + journal);
    }
    catalog = Catalogs.load(Catalogs.EMBEDDED_NAME, properties);
    ((SupportsNamespaces) catalog).createNamespace(NAMESPACE);
  }

  @Setup(Level.Iteration)
  public void newTable() {
    if (history > 0 && table != null) {
      return; // the trial's table, its past included
    }
    table = catalog.createTable(TableIdentifier.of(NAMESPACE, "t" + tables++), SCHEMA, PartitionSpec.unpartitioned(),
        Map.of(TableProperties.FORMAT_VERSION, "2",
            TableProperties.MAX_SNAPSHOT_AGE_MS, "1",
            TableProperties.MIN_SNAPSHOTS_TO_KEEP, "200"));
    // The past in transactions of up to 200 snapshots (a transaction keeps each step's metadata).
    for (int made = 0; made < history; ) {
      Transaction past = table.newTransaction();
      for (int i = 0; i < 200 && made < history; i++, made++) {
        newAppend(past::newAppend, past::newFastAppend).appendFile(file()).commit();
      }
      past.commitTransaction();
    }
  }

  private DataFile file() {
    return DataFiles.builder(table.spec())
        .withPath(table.location() + "/data/f-" + files++ + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(4096)
        .withRecordCount(100)
        .build();
  }

  @Benchmark
  public long appendOneFile() {
    newAppend(table::newAppend, table::newFastAppend).appendFile(file()).commit();
    if (expire > 0 && ++commits % expire == 0) {
      SnapshotExpiry.expire(table);
    }
    return table.currentSnapshot().snapshotId();
  }

  private AppendFiles newAppend(Supplier<AppendFiles> merging, Supplier<AppendFiles> fast) {
    return switch (append) {
      case "fast" -> fast.get();
      case "merge" -> merging.get();
      default -> throw new IllegalArgumentException("append must be fast or merge, not " + append);
    };
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    if (catalog instanceof AutoCloseable c) {
      c.close();
    }
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
