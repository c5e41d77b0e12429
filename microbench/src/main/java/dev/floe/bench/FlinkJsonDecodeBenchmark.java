package dev.floe.bench;

import dev.floe.flink.format.FloeJsonRowDataDeserializationSchema;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Kafka JSON values to Flink {@code RowData}, one message at a time, one thread, as a Kafka
 * source's deserializer works:
 *
 * <ul>
 *   <li>{@code flinkJson}: Flink's {@code json} format ({@code JsonParserRowDataDeserializationSchema},
 *       its default decoder), SQL timestamps for Nexmark and ISO-8601 for the synthetic events;
 *   <li>{@code floeJson}: {@code floe-json} with the same options -- a native decode per message
 *       into Flink's {@code BinaryRowData} of the same row (the bytes Flink's own serializer
 *       writes for it).
 * </ul>
 *
 * <p>Data sets: {@code nexmark} (all events, the Nexmark schema as Iceberg's Flink module maps
 * it) and {@code synthetic} (~142-byte flat events). Counters: {@code rows} = messages/s, {@code
 * bytes} = JSON bytes/s.
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
public class FlinkJsonDecodeBenchmark {
  private static final long SEED = 42;

  @Param({"nexmark", "synthetic"})
  public String dataset;

  @Param({"100000"})
  public int messages;

  private List<byte[]> payloads;
  private long payloadBytes;
  private DeserializationSchema<RowData> flink;
  private FloeJsonRowDataDeserializationSchema floe;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    payloads = FlinkDataSets.messages(dataset, SEED, messages);
    payloadBytes = payloads.stream().mapToLong(p -> p.length).sum();
    RowType rowType = FlinkSchemaUtil.convert(FlinkDataSets.schema(dataset));
    TimestampFormat timestamps = FlinkDataSets.timestamps(dataset);
    flink = new JsonParserRowDataDeserializationSchema(rowType, InternalTypeInfo.of(rowType), false, false, timestamps);
    floe = FloeJsonRowDataDeserializationSchema.of(rowType, false, false, timestamps);
    flink.open(FlinkDataSets.openContext());
    floe.open(FlinkDataSets.openContext());
    // Both must make the same rows of these messages (floe-json's are binary rows: Flink's own
    // bytes for Flink's row), and floe-json must make them natively.
    RowDataSerializer binary = new RowDataSerializer(rowType);
    for (byte[] payload : payloads.subList(0, Math.min(1000, payloads.size()))) {
      RowData expected = binary.toBinaryRow(flink.deserialize(payload));
      if (!expected.equals(floe.deserialize(payload))) {
        throw new IllegalStateException("floe-json and json differ on " + new String(payload));
      }
    }
    if (floe.fallbacks() > 0) {
      throw new IllegalStateException(floe.fallbacks() + " messages fell back to Flink's decoder");
    }
  }

  @Benchmark
  public void flinkJson(RateCounters counters, Blackhole blackhole) throws IOException {
    decodeAll(flink, counters, blackhole);
  }

  @Benchmark
  public void floeJson(RateCounters counters, Blackhole blackhole) throws IOException {
    decodeAll(floe, counters, blackhole);
  }

  private void decodeAll(DeserializationSchema<RowData> schema, RateCounters counters, Blackhole blackhole)
      throws IOException {
    Collector<RowData> out = new BlackholeCollector(blackhole);
    for (byte[] payload : payloads) {
      schema.deserialize(payload, out);
    }
    counters.add(payloads.size(), payloadBytes);
  }

  private record BlackholeCollector(Blackhole blackhole) implements Collector<RowData> {
    @Override
    public void collect(RowData row) {
      blackhole.consume(row);
    }

    @Override
    public void close() {}
  }
}
