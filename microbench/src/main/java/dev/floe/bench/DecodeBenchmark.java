package dev.floe.bench;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.DecodedBatch;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.NativeParquetWriter;
import dev.floe.bench.corpus.NexmarkTables;
import dev.floe.bench.stock.JacksonRecordDecoder;
import dev.floe.iceberg.ArrowSchemas;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
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
 * JSON messages (Kafka values) to Arrow / Parquet, single thread, the same messages for every
 * benchmark:
 *
 * <ul>
 *   <li>{@code floeDecode}: pack the messages into {@link MessageBatch}es of 8192 (one copy each)
 *       and decode them natively into Java Arrow vectors;
 *   <li>{@code jacksonDecode}: the stock path -- Jackson tree, then an Iceberg {@code
 *       GenericRecord} per message (what Kafka Connect-style sinks do);
 *   <li>{@code floeDecodeEncode}: pack, decode and encode to a zstd-3 Parquet file natively, the
 *       batch never crossing back into Java;
 *   <li>{@code javaDecodeEncode}: Jackson to records, then Iceberg's Java Parquet writer.
 * </ul>
 *
 * <p>Data sets: {@code nexmark} (all events), {@code nexmarkBids} (the bid messages only; both
 * with the full Nexmark event schema) and {@code synthetic} (~142-byte flat events). Counters:
 * {@code rows} = messages/s, {@code bytes} = JSON bytes/s.
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
      "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"
    })
public class DecodeBenchmark {
  private static final int BATCH_MESSAGES = 8192;
  private static final long SEED = 42;

  @Param({"nexmarkBids", "nexmark", "synthetic"})
  public String dataset;

  @Param({"200000"})
  public int messages;

  private List<byte[]> payloads;
  private long payloadBytes;
  private Schema schema;
  private BufferAllocator allocator;
  private NativeJsonDecoder decoder;
  private MessageBatch batch;
  private JacksonRecordDecoder jackson;
  private Path dir;
  private Path file;


  @Setup(Level.Trial)
  public void setUp() throws IOException {
    switch (dataset) {
      case "nexmark" -> {
        payloads = NexmarkTables.nexmarkMessages(SEED, messages);
        schema = NexmarkTables.EVENT;
      }
      case "nexmarkBids" -> {
        payloads = NexmarkTables.nexmarkBidMessages(SEED, messages);
        schema = NexmarkTables.EVENT;
      }
      case "synthetic" -> {
        payloads = NexmarkTables.syntheticMessages(SEED, messages);
        schema = NexmarkTables.SYNTHETIC;
      }
      default -> throw new IllegalArgumentException("unknown dataset " + dataset);
    }
    payloadBytes = payloads.stream().mapToLong(p -> p.length).sum();
    allocator = new RootAllocator();
    decoder = NativeJsonDecoder.create(ArrowSchemas.toArrow(schema), JsonDecoderConfig.defaults());
    batch = new MessageBatch();
    jackson = new JacksonRecordDecoder(schema);
    dir = Files.createTempDirectory("floe-decode-");
    file = dir.resolve("data.parquet");
  }

  @TearDown(Level.Invocation)
  public void deleteFile() throws IOException {
    Files.deleteIfExists(file);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    batch.close();
    decoder.close();
    allocator.close();
    Files.deleteIfExists(file);
    Files.deleteIfExists(dir);
  }

  @Benchmark
  public long floeDecode(RateCounters counters) {
    long rows = 0;
    for (int start = 0; start < payloads.size(); start += BATCH_MESSAGES) {
      pack(start);
      try (DecodedBatch decoded = decoder.decode(batch, BadRecordPolicy.FAIL, allocator)) {
        rows += decoded.root().getRowCount();
      }
    }
    count(counters);
    return rows;
  }

  @Benchmark
  public List<Record> jacksonDecode(RateCounters counters) throws IOException {
    List<Record> records = new ArrayList<>(payloads.size());
    for (byte[] payload : payloads) {
      records.add(jackson.decode(payload));
    }
    count(counters);
    return records;
  }

  @Benchmark
  public long floeDecodeEncode(RateCounters counters) {
    long rows = 0;
    try (NativeParquetWriter writer =
        NativeParquetWriter.open(file, decoder.schema(), Writers.floeConfig("zstd"), allocator)) {
      for (int start = 0; start < payloads.size(); start += BATCH_MESSAGES) {
        pack(start);
        DecodeStats stats = decoder.decodeInto(batch, writer, BadRecordPolicy.FAIL);
        rows += stats.rows();
      }
      writer.finish();
    }
    count(counters);
    return rows;
  }

  @Benchmark
  public Metrics javaDecodeEncode(RateCounters counters) throws IOException {
    List<Record> records = new ArrayList<>(payloads.size());
    for (byte[] payload : payloads) {
      records.add(jackson.decode(payload));
    }
    Metrics metrics = Writers.iceberg(file, schema, records);
    count(counters);
    return metrics;
  }

  private void pack(int start) {
    batch.clear();
    int end = Math.min(payloads.size(), start + BATCH_MESSAGES);
    for (int i = start; i < end; i++) {
      batch.add(payloads.get(i));
    }
  }

  private void count(RateCounters counters) {
    counters.add(payloads.size(), payloadBytes);
  }
}
