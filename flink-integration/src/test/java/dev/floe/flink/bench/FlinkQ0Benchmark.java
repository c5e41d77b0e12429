package dev.floe.flink.bench;

import dev.floe.corpus.CorpusSchemas;
import dev.floe.corpus.NexmarkEvent;
import dev.floe.corpus.NexmarkGenerator;
import dev.floe.flink.CountRecords;
import dev.floe.flink.IcebergTableRef;
import dev.floe.flink.KafkaPayload;
import dev.floe.flink.KafkaPayloadDeserializer;
import dev.floe.flink.StockFlink;
import dev.floe.flink.format.FloeJsonRowDataDeserializationSchema;
import dev.floe.flink.nexmark.JobWindows;
import dev.floe.flink.nexmark.NexmarkSuite;
import dev.floe.flink.nexmark.NexmarkTopic;
import dev.floe.flink.sink.FloeIcebergSink;
import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.testing.Canonical;
import dev.floe.testing.ReportNames;
import dev.floe.testing.TableFingerprint;
import dev.floe.testing.WorkDirectory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.FlinkSchemaUtil;

/**
 * Nexmark q0 (every event, as it is) Kafka -> Iceberg in Flink: stock (Flink's {@code json}
 * deserializer, the one its {@code json} format uses, into Iceberg's {@code IcebergSink}) against
 * floe's raw path ({@link FloeIcebergSink} over Kafka payloads). One MiniCluster (parallelism 2)
 * and one broker for the whole run; each run writes a fresh 4-bucket v2 table, is timed from
 * submission to the job's end (its final commit), and is validated by row count and full-value
 * fingerprint against the corpus. Run by {@code scripts/bench-flink}.
 */
public final class FlinkQ0Benchmark {
  private static final Schema NEXMARK = SchemaParser.fromJson(CorpusSchemas.nexmarkJson());
  private static final PartitionSpec BUCKETS = PartitionSpec.builderFor(NEXMARK).bucket("bid.auction", 4).build();
  private static final int PARALLELISM = 2;
  private static final long SEED = 42;

  /** The writer settings both engines get, as table properties: the Nexmark suite's. */
  private static final Map<String, String> TABLE_PROPERTIES = NexmarkSuite.WRITE_PROPERTIES;

  private final int events;
  private final Path work;
  private final LocalKafkaBroker kafka;
  private final Catalog catalog;
  private final Map<String, String> catalogProperties;
  private final TableFingerprint expected;
  private int tables;

  private FlinkQ0Benchmark(int events, Path work) throws Exception {
    this.events = events;
    this.work = work;
    this.kafka = LocalKafkaBroker.start(work.resolve("broker"));
    this.catalogProperties = Catalogs.embeddedProperties(work.resolve("warehouse"));
    this.catalog = Catalogs.load(Catalogs.EMBEDDED_NAME, catalogProperties);
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("bench"));
    this.expected = TableFingerprint.ofCanonical(() -> canonicalEvents());
    NexmarkTopic.load(kafka, "events", events, SEED);
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options =
        BenchOptions.parse(args, "[--events N] [--rounds N] [--warmup N] [--contenders stock,floe-raw] [--out DIR]");
    int events = Integer.parseInt(options.getOrDefault("events", "2000000"));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
    int warmups = Integer.parseInt(options.getOrDefault("warmup", "1"));
    Path out = Path.of(options.getOrDefault("out", "docs/benchmarks"));
    List<String> contenders = List.of(options.getOrDefault("contenders", "stock,floe-raw").split(","));

    WorkDirectory work = WorkDirectory.create("floe-bench-flink");
    FlinkQ0Benchmark bench = new FlinkQ0Benchmark(events, work.path());
    MiniCluster cluster = NexmarkSuite.startMiniCluster();
    TestStreamEnvironment.setAsContext(cluster, PARALLELISM);
    Map<String, List<Double>> seconds = new LinkedHashMap<>();
    contenders.forEach(c -> seconds.put(c, new ArrayList<>()));
    long started = System.nanoTime();
    try {
      for (int round = -warmups; round < rounds; round++) {
        List<String> order = new ArrayList<>(contenders);
        if (Math.floorMod(round, 2) == 1) {
          java.util.Collections.reverse(order);
        }
        for (String contender : order) {
          double s = bench.run(contender);
          String label = round < 0 ? "warmup" : "round " + round;
          System.out.printf(Locale.ROOT, "[q0 %s] %-9s %7.2f s %,12.0f msg/s  valid%n", label, contender, s, events / s);
          if (round >= 0) {
            seconds.get(contender).add(s);
          }
        }
      }
    } finally {
      TestStreamEnvironment.unsetAsContext();
      try {
        cluster.close();
        bench.close(); // the broker, before its directory goes
      } finally {
        work.close();
      }
    }
    new FlinkQ0Report(events, rounds, warmups, seconds, (System.nanoTime() - started) / 1e9)
        .write(out, ReportNames.today(out, "flink-q0"));
  }

  /** One run: a fresh table, the job, its time, and the table checked against the corpus. */
  private double run(String contender) throws Exception {
    TableIdentifier id = TableIdentifier.of("bench", "q0_" + (tables++));
    Table table = catalog.createTable(id, NEXMARK, BUCKETS, TABLE_PROPERTIES);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(PARALLELISM);
    env.enableCheckpointing(1_000);
    env.getConfig().enableObjectReuse();
    switch (contender) {
      case "stock" -> stockJob(env, id);
      case "floe-raw" -> floeRawJob(env, id);
      case "floe-rowdata" -> floeRowDataJob(env, id);
      case "bare-source" -> bareSourceJob(env);
      default ->
          throw new IllegalArgumentException(
              "unknown contender " + contender + " (stock, floe-raw, floe-rowdata, bare-source)");
    }
    long start = System.nanoTime();
    JobExecutionResult result = env.execute("q0 " + contender);
    double elapsed = JobWindows.close("q0 " + contender, start);
    if (contender.equals("bare-source")) {
      long records = result.getAccumulatorResult(CountRecords.NAME);
      if (records != events) {
        throw new IllegalStateException("bare-source read " + records + " records, the topic has " + events);
      }
      catalog.dropTable(id, true);
      return elapsed;
    }
    table.refresh();
    TableFingerprint actual = TableFingerprint.of(table);
    if (!actual.equals(expected)) {
      throw new IllegalStateException(contender + " wrote " + actual + ", the corpus is " + expected);
    }
    catalog.dropTable(id, true);
    return elapsed;
  }

  private void stockJob(StreamExecutionEnvironment env, TableIdentifier id) {
    KafkaSource<RowData> source = StockFlink.jsonValues(sourceBuilder(RowData.class), NEXMARK).build();
    StockFlink.icebergSink(env.fromSource(source, WatermarkStrategy.noWatermarks(), "events"), catalogProperties, id)
        .append();
  }

  private void floeRawJob(StreamExecutionEnvironment env, TableIdentifier id) {
    KafkaSource<KafkaPayload> source = sourceBuilder(KafkaPayload.class).setDeserializer(new KafkaPayloadDeserializer()).build();
    FloeIcebergSink.forKafkaPayloads(IcebergTableRef.of(Catalogs.EMBEDDED_NAME, catalogProperties, id))
        .append(env.fromSource(source, WatermarkStrategy.noWatermarks(), "events"));
  }

  /** The RowData path: floe-json rows from the source, FloeIcebergSink's RowData writers. */
  private void floeRowDataJob(StreamExecutionEnvironment env, TableIdentifier id) {
    RowType rowType = FlinkSchemaUtil.convert(NEXMARK);
    KafkaSource<RowData> source =
        sourceBuilder(RowData.class)
            .setValueOnlyDeserializer(FloeJsonRowDataDeserializationSchema.of(rowType, false, false, TimestampFormat.SQL))
            .build();
    FloeIcebergSink.forRowData(IcebergTableRef.of(Catalogs.EMBEDDED_NAME, catalogProperties, id))
        .rowType(rowType)
        .append(env.fromSource(source, WatermarkStrategy.noWatermarks(), "events"));
  }

  /** The bound: Flink's Kafka source alone, each record counted and dropped. */
  private void bareSourceJob(StreamExecutionEnvironment env) {
    KafkaSource<KafkaPayload> source = sourceBuilder(KafkaPayload.class).setDeserializer(new KafkaPayloadDeserializer()).build();
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "events").map(new CountRecords<>()).sinkTo(new DiscardingSink<>());
  }

  private <T> org.apache.flink.connector.kafka.source.KafkaSourceBuilder<T> sourceBuilder(Class<T> type) {
    return KafkaSource.<T>builder()
        .setBootstrapServers(kafka.bootstrapServers())
        .setTopics("events")
        .setGroupId("bench")
        .setStartingOffsets(OffsetsInitializer.earliest())
        .setBounded(OffsetsInitializer.latest())
        .setProperty("max.poll.records", "8192");
  }

  private Iterator<String> canonicalEvents() {
    NexmarkGenerator generator = new NexmarkGenerator(SEED);
    return new Iterator<>() {
      private int produced;

      @Override
      public boolean hasNext() {
        return produced < events;
      }

      @Override
      public String next() {
        produced++;
        NexmarkEvent event = generator.next();
        return Canonical.nexmark(event);
      }
    };
  }

  private void close() throws Exception {
    IcebergTableRef.close(catalog);
    kafka.close();
  }
}
