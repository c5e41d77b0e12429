package dev.floe.flink.sink;

import dev.floe.bench.FlinkDataSets;
import dev.floe.bench.RateCounters;
import dev.floe.arrow.DecodedBatch;
import dev.floe.flink.format.FloeJsonRowDataDeserializationSchema;
import dev.floe.iceberg.ArrowSchemas;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * The {@code RowData} sink's rows into Arrow, without the native encode: {@code floe-json} rows
 * (Flink's binary rows) copied into Arrow batches of the table's schema in Java ({@link
 * RowDataToArrow}, {@code rowsToArrow}), batch after batch on fresh buffers as the writer does; or
 * their bytes packed for libfloe, which reads each batch into Arrow itself ({@link BinaryRows},
 * {@code binaryRowsToArrow}; the batch is imported back into Java here, which the sink does not
 * need). In this package because both are package-private.
 *
 * <p>Data sets: {@code nexmark} (all events) and {@code synthetic} (~142-byte flat events).
 * Counters: {@code rows} = rows/s, {@code bytes} = their JSON's bytes/s.
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
      "-Xms2g",
      "-Xmx2g",
      "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"
    })
public class RowDataToArrowBenchmark {
  private static final long SEED = 42;

  @Param({"nexmark", "synthetic"})
  public String dataset;

  @Param({"100000"})
  public int messages;

  @Param({"4096"})
  public int batchRows;

  private List<RowData> rows;
  private long payloadBytes;
  private BufferAllocator allocator;
  private RowDataToArrow converter;
  private BinaryRows binaryRows;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    Schema schema = FlinkDataSets.schema(dataset);
    List<byte[]> payloads = FlinkDataSets.messages(dataset, SEED, messages);
    payloadBytes = payloads.stream().mapToLong(p -> p.length).sum();
    RowType rowType = FlinkSchemaUtil.convert(schema);
    FloeJsonRowDataDeserializationSchema format =
        FloeJsonRowDataDeserializationSchema.of(rowType, false, false, FlinkDataSets.timestamps(dataset));
    format.open(FlinkDataSets.openContext());
    rows = new ArrayList<>(payloads.size());
    for (byte[] payload : payloads) {
      rows.add(format.deserialize(payload));
    }
    if (format.fallbacks() > 0) {
      throw new IllegalStateException(format.fallbacks() + " messages fell back to Flink's decoder");
    }
    allocator = new RootAllocator();
    converter = new RowDataToArrow(schema, rowType, false, allocator);
    binaryRows = BinaryRows.forRows(ArrowSchemas.toArrow(schema), rowType, batchRows);
    if (binaryRows == null) {
      throw new IllegalStateException("libfloe does not read " + dataset + "'s rows natively");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    converter.close();
    binaryRows.close();
    allocator.close();
  }

  @Benchmark
  public void rowsToArrow(RateCounters counters, Blackhole blackhole) {
    for (RowData row : rows) {
      converter.append(row);
      if (converter.rowCount() >= batchRows) {
        blackhole.consume(converter.root());
        converter.reset();
      }
    }
    blackhole.consume(converter.root());
    converter.reset();
    counters.add(rows.size(), payloadBytes);
  }

  @Benchmark
  public void binaryRowsToArrow(RateCounters counters, Blackhole blackhole) {
    for (RowData row : rows) {
      binaryRows.add((BinaryRowData) row);
      if (binaryRows.full()) {
        readBatch(blackhole);
      }
    }
    readBatch(blackhole);
    counters.add(rows.size(), payloadBytes);
  }

  private void readBatch(Blackhole blackhole) {
    try (DecodedBatch batch = binaryRows.readBatch(allocator)) {
      blackhole.consume(batch.root().getRowCount());
    }
  }
}
