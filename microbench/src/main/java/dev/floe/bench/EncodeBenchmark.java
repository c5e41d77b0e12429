package dev.floe.bench;

import com.github.luben.zstd.Zstd;
import dev.floe.arrow.ParquetFileSummary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.parquet.ParquetUtil;
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

/**
 * Parquet encoding of the same rows with the same settings (zstd-3, 128 MiB row groups, 1 MiB
 * pages, 2 MiB dictionary pages), single thread, into a file on local disk:
 *
 * <ul>
 *   <li>{@code floeNative}: floe's native writer, Arrow batches of 8192 rows, writing the file
 *       itself;
 *   <li>{@code floeNativeStream}: the same, but into Iceberg's local {@code OutputFile} stream
 *       (the path floe's Iceberg integration takes);
 *   <li>{@code icebergJava}: Iceberg Java's generic Parquet writer fed {@code GenericRecord}s;
 *   <li>{@code rawZstd3}: the ceiling -- zstd level 3 alone over the column bytes of the same
 *       data (the pages of an uncompressed floe file), in 1 MiB chunks.
 * </ul>
 *
 * <p>One operation writes the whole data set. Read the auxiliary counters: {@code rows} is rows
 * per second, {@code bytes} is uncompressed column bytes per second -- the same byte count for
 * every benchmark, so {@code floeNative.bytes / rawZstd3.bytes} is the share of raw zstd-3 speed
 * the encoder reaches over the same column bytes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(
    value = 1,
    jvmArgsAppend = {
      "--enable-native-access=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "-Xms4g",
      "-Xmx4g",
      // Iceberg and Arrow log at INFO on every file; keep the JMH output readable.
      "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"
    })
public class EncodeBenchmark {
  private static final int BATCH_ROWS = 8192;
  private static final int ZSTD_CHUNK_BYTES = 1024 * 1024;
  private static final int ZSTD_LEVEL = 3;
  private static final long SEED = 42;

  @Param({"nexmarkBids", "wide50"})
  public String dataset;

  /** Rows per operation; 0 takes the data set's default (1,000,000 bids, 200,000 wide rows). */
  @Param({"0"})
  public int rows;

  private int rowCount;
  private BufferAllocator allocator;
  private org.apache.arrow.vector.types.pojo.Schema arrowSchema;
  private org.apache.iceberg.Schema icebergSchema;
  private List<VectorSchemaRoot> batches;
  private List<Record> records;
  private long columnBytes;
  private List<byte[]> zstdChunks;
  private byte[] zstdOut;
  private Path dir;
  private Path file;


  @Setup(Level.Trial)
  public void setUp() throws IOException {
    GeneratedTable table =
        switch (dataset) {
          case "nexmarkBids" ->
              NexmarkBids.generate(rows > 0 ? rows : NexmarkBids.DEFAULT_ROWS, SEED);
          case "wide50" -> WideTable.generate(rows > 0 ? rows : WideTable.DEFAULT_ROWS, SEED);
          default -> throw new IllegalArgumentException("unknown dataset " + dataset);
        };
    rowCount = table.rowCount();
    allocator = new RootAllocator();
    arrowSchema = table.arrowSchema();
    icebergSchema = table.icebergSchema();
    batches = table.arrowBatches(allocator, BATCH_ROWS);
    records = table.records();

    String base = System.getProperty("floe.bench.dir");
    dir =
        base == null
            ? Files.createTempDirectory("floe-encode-")
            : Files.createTempDirectory(Files.createDirectories(Path.of(base)), "floe-encode-");
    file = dir.resolve("data.parquet");

    // The ceiling's input: the column bytes of the same rows, encoded but not compressed.
    Path plain = dir.resolve("uncompressed.parquet");
    ParquetFileSummary plainSummary =
        Writers.floe(plain, arrowSchema, batches, Writers.floeConfig("uncompressed"), allocator);
    byte[] pages = ColumnBytes.read(plain, plainSummary);
    columnBytes = pages.length;
    zstdChunks = ColumnBytes.split(pages, ZSTD_CHUNK_BYTES);
    zstdOut = new byte[Math.toIntExact(Zstd.compressBound(ZSTD_CHUNK_BYTES))];

    checkSameRows(Files.size(plain));
    Files.delete(plain);
  }

  /**
   * Writes the data once with each writer and fails unless both files hold every row and Iceberg
   * reads the same value counts, null counts and bounds from both (so both sides got the same
   * values, not just the same number of rows).
   */
  private void checkSameRows(long plainFileBytes) throws IOException {
    Path floeFile = dir.resolve("check-floe.parquet");
    Path icebergFile = dir.resolve("check-iceberg.parquet");
    ParquetFileSummary floe =
        Writers.floe(floeFile, arrowSchema, batches, Writers.floeConfig("zstd"), allocator);
    Metrics icebergWritten = Writers.iceberg(icebergFile, icebergSchema, records);

    Metrics fromFloe = readMetrics(floeFile);
    Metrics fromIceberg = readMetrics(icebergFile);
    long[] counts = {
      floe.rowCount(), fromFloe.recordCount(), icebergWritten.recordCount(), fromIceberg.recordCount()
    };
    for (long count : counts) {
      if (count != rowCount) {
        throw new IllegalStateException(
            dataset + ": expected " + rowCount + " rows, got (floe summary, floe file, iceberg"
                + " metrics, iceberg file) = " + Arrays.toString(counts));
      }
    }
    same("value counts", fromFloe.valueCounts(), fromIceberg.valueCounts());
    same("null counts", fromFloe.nullValueCounts(), fromIceberg.nullValueCounts());
    same("lower bounds", fromFloe.lowerBounds(), fromIceberg.lowerBounds());
    same("upper bounds", fromFloe.upperBounds(), fromIceberg.upperBounds());

    System.out.printf(
        Locale.ROOT,
        "%n[%s] %,d rows in %d batches; uncompressed file %,d B, column bytes %,d B (%d zstd"
            + " chunks); zstd-3 files: floe %,d B, iceberg %,d B%n",
        dataset,
        rowCount,
        batches.size(),
        plainFileBytes,
        columnBytes,
        zstdChunks.size(),
        Files.size(floeFile),
        Files.size(icebergFile));
    Files.delete(floeFile);
    Files.delete(icebergFile);
  }

  private static Metrics readMetrics(Path path) {
    return ParquetUtil.fileMetrics(
        org.apache.iceberg.Files.localInput(path.toFile()), MetricsConfig.getDefault());
  }

  private void same(String what, Object floe, Object iceberg) {
    if (!floe.equals(iceberg)) {
      throw new IllegalStateException(
          dataset + ": " + what + " differ between the floe and the Iceberg file:\n  floe:    "
              + floe + "\n  iceberg: " + iceberg);
    }
  }

  @TearDown(Level.Invocation)
  public void deleteFile() throws IOException {
    Files.deleteIfExists(file);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    batches.forEach(VectorSchemaRoot::close);
    allocator.close();
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  @Benchmark
  public ParquetFileSummary floeNative(RateCounters counters) {
    ParquetFileSummary summary =
        Writers.floe(file, arrowSchema, batches, Writers.floeConfig("zstd"), allocator);
    count(counters);
    return summary;
  }

  @Benchmark
  public ParquetFileSummary floeNativeStream(RateCounters counters) {
    ParquetFileSummary summary =
        Writers.floeStream(file, arrowSchema, batches, Writers.floeConfig("zstd"), allocator);
    count(counters);
    return summary;
  }

  @Benchmark
  public Metrics icebergJava(RateCounters counters) {
    Metrics metrics = Writers.iceberg(file, icebergSchema, records);
    count(counters);
    return metrics;
  }

  /** One-shot zstd-3 of each 1 MiB chunk into a reused output buffer. */
  @Benchmark
  public long rawZstd3(RateCounters counters) {
    long compressed = 0;
    for (byte[] chunk : zstdChunks) {
      compressed += Zstd.compress(zstdOut, chunk, ZSTD_LEVEL);
    }
    count(counters);
    return compressed;
  }

  /** rawZstd3 counts rows too: the rows whose column bytes it compressed. */
  private void count(RateCounters counters) {
    counters.add(rowCount, columnBytes);
  }
}
