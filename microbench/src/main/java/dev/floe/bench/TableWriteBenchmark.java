package dev.floe.bench;

import dev.floe.bench.TableWrites.WriteMode;
import dev.floe.bench.corpus.NexmarkBidStream;
import dev.floe.bench.stock.JacksonRecordDecoder;
import dev.floe.corpus.NexmarkEvent;
import dev.floe.testing.TableFingerprint;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The Nexmark bid stream written into a format v2 Iceberg table partitioned by bucket[4] on
 * {@code auction} -- appended, or upserted by the identifier fields (auction, bidder) -- with the
 * same table properties on every side (zstd-3, 128 MiB row groups, 1 MiB pages, 2 MiB dictionary
 * pages), one commit per operation, one writing thread unless said otherwise:
 *
 * <ul>
 *   <li>{@code floe}: JSON messages -> floe's native decoder and task writer (partitioned fanout;
 *       upserts with equality and position deletes) -> commit;
 *   <li>{@code floeDecodeAhead}: the same, with a second thread decoding batch N+1 while batch
 *       N encodes, as floe's Kafka sink runs -- two cores;
 *   <li>{@code floeTwoEncodeThreads}: the same, with a second thread sharing out each file's
 *       column encoding and compression ({@code withEncodeThreads(2)}; byte-identical files) --
 *       two cores;
 *   <li>{@code icebergJava}: JSON messages -> Jackson -> {@code GenericRecord} -> Iceberg Java's
 *       writers (partitioned fanout over the generic appender factory; for upserts the
 *       equality-delta writer) -> commit: what a Kafka Connect-style sink does;
 *   <li>{@code icebergJavaFromRecords}: the same Iceberg Java writers fed records decoded before
 *       the measurement -- the writers alone, not a sink.
 * </ul>
 *
 * <p>One operation writes all {@code rows} bids into a fresh table (created before, and deleted
 * after, the timed part), so the mode is single-shot: the score is seconds per operation, and
 * {@code rows / score} is rows per second (JMH keeps no auxiliary counters in this mode). The
 * first table of every trial is read back with Iceberg's generic reader and must hold exactly the
 * expected rows (every bid, or the last bid per key); every table's snapshot summary must count
 * them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
// Both sides still speed up over the first operations (JIT of the Java parts, the native heap
// reaching its size): with one warmup floe's shots fell 3.08 -> 2.69 s and Iceberg Java's
// 10.7 -> 9.5 s across the measured five. Three warmups measure the steady state of both.
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(
    value = 1,
    jvmArgsAppend = {
      "--enable-native-access=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      // Room for the stock path's per-row garbage next to 2M messages (and, for the
      // FromRecords variant, 2M records held in memory): ~2.2 GB live at most.
      "-Xms8g",
      "-Xmx8g",
      "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
      // Two warnings per fresh table (catalog without views, no native Hadoop): known, harmless.
      "-Dorg.slf4j.simpleLogger.log.org.apache.iceberg.jdbc.JdbcCatalog=error",
      "-Dorg.slf4j.simpleLogger.log.org.apache.hadoop.util.NativeCodeLoader=error"
    })
public class TableWriteBenchmark {
  private static final long SEED = 42;

  @Param({"append", "upsert"})
  public String mode;

  /** Bids per operation. */
  @Param({"2000000"})
  public int rows;

  /**
   * The table's format version. On 3, floe's upserts delete by deletion vectors. The stock upsert
   * path here (the equality-delta writer over the generic appender factory) writes position-delete
   * files, which a v3 commit refuses, so on 3 run floe's cases only ({@code -p formatVersion=3 -e
   * icebergJava}).
   */
  @Param({"2"})
  public int formatVersion;

  private WriteMode writeMode;
  private List<byte[]> messages;
  private long messageBytes;
  private List<Record> records;
  private TableFingerprint expected;
  private int distinctKeys;
  private BufferAllocator allocator;
  private String benchmark;
  private BidWarehouse warehouse;
  private Table table;
  private Snapshot committed;
  private boolean readBack;

  @Setup(Level.Trial)
  public void setUp(BenchmarkParams params) throws IOException {
    writeMode = WriteMode.of(mode);
    benchmark = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
    List<NexmarkEvent.Bid> bids = NexmarkBidStream.bids(SEED, rows);
    messages = NexmarkBidStream.messages(bids);
    messageBytes = messages.stream().mapToLong(m -> m.length).sum();
    expected =
        writeMode == WriteMode.UPSERT ? BidRows.upserted(bids) : BidRows.appended(bids);
    distinctKeys = BidRows.distinctKeys(bids);
    if (benchmark.endsWith("FromRecords")) {
      JacksonRecordDecoder jackson = new JacksonRecordDecoder(NexmarkBidStream.SCHEMA);
      records = new ArrayList<>(messages.size());
      for (byte[] message : messages) {
        records.add(jackson.decode(message));
      }
    }
    allocator = new RootAllocator();
    System.out.printf(
        Locale.ROOT,
        "%n[%s %s] %,d bids, %,d JSON bytes (%.1f B/bid); %,d distinct (auction, bidder) keys,"
            + " %,d bids repeat a key%n",
        benchmark,
        mode,
        rows,
        messageBytes,
        (double) messageBytes / rows,
        distinctKeys,
        rows - distinctKeys);
  }

  @Setup(Level.Invocation)
  public void newTable() {
    warehouse = BidWarehouse.create(baseDir());
    table = warehouse.newBidTable("bids", formatVersion);
    committed = null;
  }

  private static Path baseDir() {
    String base = System.getProperty("floe.bench.dir");
    return base == null ? null : Path.of(base);
  }

  /** Checks the commit (every time) and the table's rows (first table of the trial), untimed. */
  @TearDown(Level.Invocation)
  public void checkAndDropTable() throws IOException {
    try (BidWarehouse written = warehouse) {
      checkSummary();
      if (!readBack) {
        checkRows(written);
        readBack = true;
      }
    } finally {
      warehouse = null;
      table = null;
    }
  }

  private void checkSummary() {
    if (committed == null) {
      throw new IllegalStateException(benchmark + ": nothing was committed");
    }
    Map<String, String> summary = committed.summary();
    long dataRows = Long.parseLong(summary.get(SnapshotSummary.TOTAL_RECORDS_PROP));
    long equalityDeletes = Long.parseLong(summary.get(SnapshotSummary.TOTAL_EQ_DELETES_PROP));
    long positionDeletes = Long.parseLong(summary.get(SnapshotSummary.TOTAL_POS_DELETES_PROP));
    boolean upsert = writeMode == WriteMode.UPSERT;
    // Upserts write every bid, an equality delete per key's first bid, a position delete per repeat.
    long[] want = {rows, upsert ? distinctKeys : 0, upsert ? rows - distinctKeys : 0};
    long[] got = {dataRows, equalityDeletes, positionDeletes};
    if (!Arrays.equals(want, got)) {
      throw new IllegalStateException(
          benchmark + " " + mode + ": committed (data rows, equality deletes, position deletes) = "
              + Arrays.toString(got) + ", expected " + Arrays.toString(want));
    }
  }

  private void checkRows(BidWarehouse written) throws IOException {
    Table reloaded = written.load("bids");
    TableFingerprint actual;
    try (CloseableIterable<Record> rowsRead = IcebergGenerics.read(reloaded).build()) {
      actual = TableFingerprint.ofRecords(rowsRead, 7);
    }
    if (!actual.equals(expected)) {
      throw new IllegalStateException(
          benchmark + " " + mode + ": the table reads back as " + actual + ", expected " + expected);
    }
    Map<String, String> summary = committed.summary();
    System.out.printf(
        Locale.ROOT,
        "%n[%s %s] table reads back as expected: %,d rows; %s data files, %s delete files, %,d"
            + " bytes of files%n",
        benchmark,
        mode,
        actual.rows(),
        summary.get(SnapshotSummary.TOTAL_DATA_FILES_PROP),
        summary.get(SnapshotSummary.TOTAL_DELETE_FILES_PROP),
        Long.parseLong(summary.get(SnapshotSummary.TOTAL_FILE_SIZE_PROP)));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    allocator.close();
  }

  @Benchmark
  public Snapshot floe() {
    committed = TableWrites.floe(table, writeMode, messages, allocator, 1);
    return committed;
  }

  /** floe with a second thread decoding a batch ahead of the encoding thread, as the sink runs. */
  @Benchmark
  public Snapshot floeDecodeAhead() {
    committed = TableWrites.floeDecodeAhead(table, writeMode, messages, allocator);
    return committed;
  }

  /** floe with a second thread sharing out each file's column encoding (same files). */
  @Benchmark
  public Snapshot floeTwoEncodeThreads() {
    committed = TableWrites.floe(table, writeMode, messages, allocator, 2);
    return committed;
  }

  @Benchmark
  public Snapshot icebergJava() throws IOException {
    committed = TableWrites.icebergJava(table, writeMode, messages);
    return committed;
  }

  @Benchmark
  public Snapshot icebergJavaFromRecords() throws IOException {
    committed = TableWrites.icebergJavaFromRecords(table, writeMode, records);
    return committed;
  }
}
