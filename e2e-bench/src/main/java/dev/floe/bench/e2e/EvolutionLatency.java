package dev.floe.bench.e2e;

import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.kafka.sink.KafkaIcebergSink;
import dev.floe.kafka.sink.SinkConfig;
import dev.floe.kafka.sink.SnapshotOffsets;
import dev.floe.testing.ReportNames;
import dev.floe.testing.WorkDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What one schema evolution costs floe's sink ({@code evolve.schema}): a sink with a 1 s commit
 * interval runs under a steady stream of records (a local broker, the embedded catalog, a
 * 4-bucket v2 table); now and then a probe record goes out, either like the rest or carrying a
 * field the table does not have yet (a new one each time: top-level, nested object, array,
 * alternating), at a random moment of the commit cycle. Per probe: the time from its send to the
 * commit that holds it (the table's stored offset passing it), and for evolving probes the time
 * the sink held their batch up (the schema commit, the new writer, the decode again: the sink's
 * {@code SchemaEvolutionMillis}).
 *
 * <p>{@code scripts/bench-evolution [--probes 20] [--rate 20000] [--out DIR]}
 */
public final class EvolutionLatency {
  private static final String TOPIC = "evolving";
  private static final TableIdentifier TABLE = TableIdentifier.of("bench", "evolving");
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "n", Types.IntegerType.get()));
  private static final Duration COMMIT_INTERVAL = Duration.ofSeconds(1);

  record Probe(boolean evolving, double toCommitMs, double heldUpMs) {}

  public static void main(String[] args) throws Exception {
    int probes = 20;
    int rate = 20_000;
    Path out = Path.of("docs/benchmarks/archive");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--probes" -> probes = Integer.parseInt(args[++i]);
        case "--rate" -> rate = Integer.parseInt(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException(
            "unknown option " + args[i] + "; usage: [--probes 20] [--rate 20000] [--out DIR]");
      }
    }
    List<Probe> results;
    try (WorkDirectory work = WorkDirectory.create("floe-evolution-latency");
        LocalKafkaBroker kafka = LocalKafkaBroker.start(work.path().resolve("kafka"))) {
      kafka.createTopic(TOPIC, 1);
      Catalog catalog = Catalogs.embedded(work.path().resolve("warehouse"));
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("bench"));
      catalog.createTable(TABLE, SCHEMA, PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build(),
          Map.of(TableProperties.FORMAT_VERSION, "2"));
      results = run(kafka.bootstrapServers(), catalog, probes, rate);
      if (catalog instanceof AutoCloseable c) {
        c.close();
      }
    }
    write(out, results, rate);
  }

  private static List<Probe> run(String bootstrap, Catalog catalog, int probes, int rate) throws Exception {
    SinkConfig config = SinkConfig.builder(catalog, bootstrap, "evolution-latency")
        .route(TOPIC, TABLE)
        .commitEvery(COMMIT_INTERVAL, Long.MAX_VALUE, Long.MAX_VALUE)
        .evolveSchema(true)
        .build();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong ids = new AtomicLong();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    List<Probe> results = new ArrayList<>();
    Random random = new Random(42);
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config);
        KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
      Future<?> running = threads.submit(sink::run);
      Future<?> load = threads.submit(() -> steadyLoad(producer, rate, ids, stop));
      Table watched = catalog.loadTable(TABLE);
      awaitCommitted(watched, 1); // the sink is up and committing
      for (int p = 0; p < probes; p++) {
        Thread.sleep(COMMIT_INTERVAL.toMillis() + random.nextInt((int) COMMIT_INTERVAL.toMillis()));
        boolean evolving = p % 2 == 1;
        long id = ids.incrementAndGet();
        String json = evolving ? withNewField(id, p / 2) : plain(id);
        double heldBefore = sink.metrics().getSchemaEvolutionMillis();
        long sent = System.nanoTime();
        long offset = producer.send(new ProducerRecord<>(TOPIC, json.getBytes(StandardCharsets.UTF_8))).get().offset();
        awaitCommitted(watched, offset + 1);
        double toCommit = (System.nanoTime() - sent) / 1e6;
        double heldUp = sink.metrics().getSchemaEvolutionMillis() - heldBefore;
        results.add(new Probe(evolving, toCommit, heldUp));
        System.out.printf(Locale.ROOT, "probe %2d %-9s to commit %6.0f ms, batch held up %5.1f ms%n",
            p, evolving ? "evolving" : "plain", toCommit, heldUp);
      }
      stop.set(true);
      load.get();
      sink.stop();
      running.get();
      if (sink.metrics().getSchemaEvolutions() != probes / 2) {
        throw new IllegalStateException("expected " + probes / 2 + " evolutions, the sink counted "
            + sink.metrics().getSchemaEvolutions());
      }
    } finally {
      threads.shutdownNow();
    }
    return results;
  }

  private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    return new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.LINGER_MS_CONFIG, 5,
        ProducerConfig.ACKS_CONFIG, "all"), new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** {@code rate} plain records a second, in bursts every 10 ms, until {@code stop}. */
  private static void steadyLoad(KafkaProducer<byte[], byte[]> producer, int rate, AtomicLong ids, AtomicBoolean stop) {
    int perTick = Math.max(1, rate / 100);
    long next = System.nanoTime();
    while (!stop.get()) {
      for (int i = 0; i < perTick; i++) {
        producer.send(new ProducerRecord<>(TOPIC, plain(ids.incrementAndGet()).getBytes(StandardCharsets.UTF_8)));
      }
      next += 10_000_000L;
      long wait = next - System.nanoTime();
      if (wait > 0) {
        java.util.concurrent.locks.LockSupport.parkNanos(wait);
      }
    }
    producer.flush();
  }

  private static String plain(long id) {
    return "{\"id\":" + id + ",\"name\":\"user-" + (id % 1000) + "\",\"n\":" + (id % 100_000) + "}";
  }

  /** A record with field number {@code k} the table lacks: a string, an object or an array by turns. */
  private static String withNewField(long id, int k) {
    String value = switch (k % 3) {
      case 0 -> "\"v" + k + "\"";
      case 1 -> "{\"a\":" + k + ",\"b\":\"x\"}";
      default -> "[" + k + "," + (k + 1) + "]";
    };
    String body = plain(id);
    return body.substring(0, body.length() - 1) + ",\"f" + k + "\":" + value + "}";
  }

  /** Waits until the table's stored offset for the topic's partition reaches {@code next}. */
  private static void awaitCommitted(Table table, long next) throws InterruptedException {
    TopicPartition tp = new TopicPartition(TOPIC, 0);
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (true) {
      table.refresh();
      TableMetadata metadata = ((org.apache.iceberg.HasTableOperations) table).operations().current();
      SnapshotOffsets.Position stored = SnapshotOffsets.latest(metadata, "evolution-latency", List.of(tp)).get(tp);
      if (stored != null && stored.next() >= next) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("offset " + next + " was not committed within 2 minutes");
      }
      Thread.sleep(5);
    }
  }

  private static void write(Path dir, List<Probe> probes, int rate) throws IOException {
    Files.createDirectories(dir);
    List<Double> plain = probes.stream().filter(p -> !p.evolving()).map(Probe::toCommitMs).sorted().toList();
    List<Double> evolving = probes.stream().filter(Probe::evolving).map(Probe::toCommitMs).sorted().toList();
    List<Double> heldUp = probes.stream().filter(Probe::evolving).map(Probe::heldUpMs).sorted().toList();
    StringBuilder md = new StringBuilder();
    String date = LocalDate.now(ZoneOffset.UTC).toString();
    md.append("# What one schema evolution costs floe's sink (").append(date).append(")\n\n")
        .append("`scripts/bench-evolution`: floe's sink with `evolve.schema` on and a ")
        .append(COMMIT_INTERVAL.toMillis()).append(" ms commit interval, under a steady ")
        .append(String.format(Locale.ROOT, "%,d", rate))
        .append(" records/s (a local broker, the embedded catalog, a 4-bucket v2 table). Probe records go out")
        .append(" at random moments of the commit cycle, alternately like the rest (plain) or carrying a field")
        .append(" the table lacks (evolving: a new one each time, a string, an object or an array by turns).")
        .append(" *To commit*: from the probe's send to the commit holding it. *Held up*: how long the sink")
        .append(" held the probe's batch to evolve the table (schema commit, new writer, decode again).\n\n")
        .append("| probes | n | to commit, median | p90 | min | max | batch held up, median | max |\n")
        .append("|---|---|---|---|---|---|---|---|\n");
    row(md, "plain", plain, null);
    row(md, "evolving", evolving, heldUp);
    md.append("\nMachine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores.\n");
    Path file = dir.resolve(ReportNames.today(dir, "evolution-latency") + ".md");
    Files.writeString(file, md.toString());
    System.out.println(md);
    System.out.println("wrote " + file);
  }

  private static void row(StringBuilder md, String name, List<Double> values, List<Double> heldUp) {
    md.append(String.format(Locale.ROOT, "| %s | %d | %.0f ms | %.0f ms | %.0f ms | %.0f ms | %s | %s |%n", name,
        values.size(), percentile(values, 0.5), percentile(values, 0.9), values.getFirst(), values.getLast(),
        heldUp == null ? "-" : String.format(Locale.ROOT, "%.1f ms", percentile(heldUp, 0.5)),
        heldUp == null ? "-" : String.format(Locale.ROOT, "%.1f ms", heldUp.getLast())));
  }

  private static double percentile(List<Double> sorted, double q) {
    int index = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.clamp(index, 0, sorted.size() - 1));
  }
}
