package dev.floe.cli;

import dev.floe.corpus.CorpusSchemas;
import dev.floe.corpus.NexmarkGenerator;
import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.kafka.sink.KafkaIcebergSink;
import dev.floe.kafka.sink.SinkConfig;
import dev.floe.testing.Canonical;
import dev.floe.testing.TableFingerprint;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The README's main job, end to end on one machine with no outside services: a local Kafka broker,
 * the Nexmark corpus on a 4-partition topic, floe's sink into a 4-bucket table of the embedded
 * catalog until the end of the topic, then a check of the table against the input (row count and
 * a full-value fingerprint read back through Iceberg's generic reader) and the throughput.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Run the main job locally: start a Kafka broker, generate Nexmark events into a 4-partition topic,"
          + " sink them into a 4-bucket Iceberg table (embedded catalog), check the table against the input.",
      "Everything lives under --dir (wiped at the start of each run)."
    })
final class DemoCommand implements Callable<Integer> {
  private static final String MARKER = ".floe-demo";
  private static final TableIdentifier TABLE = TableIdentifier.of("nexmark", "events");

  @Spec CommandSpec spec;

  @Option(names = "--events", defaultValue = "1000000", description = "Nexmark events (default: ${DEFAULT-VALUE}).")
  int events;

  @Option(names = "--seed", defaultValue = "42", description = "Generator seed (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--dir", defaultValue = "floe-demo", description = "Working directory: broker data and the warehouse (default: ${DEFAULT-VALUE}).")
  Path dir;

  @Option(names = "--partitions", defaultValue = "4", description = "Topic partitions (default: ${DEFAULT-VALUE}).")
  int partitions;

  @Override
  public Integer call() throws Exception {
    if (events <= 0) {
      throw new ParameterException(spec.commandLine(), "--events must be > 0, got " + events);
    }
    if (partitions <= 0) {
      throw new ParameterException(spec.commandLine(), "--partitions must be > 0, got " + partitions);
    }
    PrintWriter out = spec.commandLine().getOut();
    Path home = prepare(dir.toAbsolutePath());
    Path warehouse = home.resolve("warehouse");
    say(out, "starting a local Kafka broker in %s", home.resolve("kafka"));
    try (LocalKafkaBroker kafka = LocalKafkaBroker.start(home.resolve("kafka"))) {
      say(out, "broker at %s; generating %,d Nexmark events (seed %d) into topic 'nexmark' (%d partitions)",
          kafka.bootstrapServers(), events, seed, partitions);
      long bytes = produce(kafka);
      say(out, "produced %,d events, %,d bytes of JSON", events, bytes);

      Catalog catalog = Catalogs.embedded(warehouse);
      try {
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("nexmark"));
        Schema schema = SchemaParser.fromJson(CorpusSchemas.nexmarkJson());
        SinkConfig config =
            SinkConfig.builder(catalog, kafka.bootstrapServers(), "floe-demo")
                .route("nexmark", TABLE)
                .createTables(
                    schema,
                    PartitionSpec.builderFor(schema).bucket("bid.auction", 4).build(),
                    Map.of(TableProperties.FORMAT_VERSION, "2"))
                .commitEvery(Duration.ofSeconds(10), 500_000, Long.MAX_VALUE)
                .stopAtEnd(true)
                .build();
        say(out, "sinking topic 'nexmark' into table %s (bucket[4] on bid.auction), exactly once", TABLE);
        double seconds;
        try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
          long started = System.nanoTime();
          sink.run();
          seconds = (System.nanoTime() - started) / 1e9;
          SinkProgress.summary(sink.metrics(), seconds, out);
        }
        return check(out, catalog.loadTable(TABLE), warehouse);
      } finally {
        if (catalog instanceof AutoCloseable c) {
          c.close();
        }
      }
    }
  }

  /**
   * Makes the demo's directory, or, in one an earlier demo made, removes what that demo left (its
   * broker's data and its warehouse) and nothing else: files a user put there stay.
   */
  private static Path prepare(Path home) throws IOException {
    if (Files.exists(home)) {
      boolean ours = Files.exists(home.resolve(MARKER));
      boolean empty;
      try (Stream<Path> entries = Files.list(home)) {
        empty = entries.findAny().isEmpty();
      }
      if (!ours && !empty) {
        throw new IllegalArgumentException(home + " exists and was not made by floe demo; choose another --dir");
      }
      for (String own : List.of("kafka", "warehouse")) {
        deleteTree(home.resolve(own));
      }
    }
    Files.createDirectories(home);
    if (!Files.exists(home.resolve(MARKER))) {
      Files.createFile(home.resolve(MARKER));
    }
    return home;
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private long produce(LocalKafkaBroker kafka) {
    Duration timeout = Duration.ofSeconds(30);
    KafkaTopic.ensure(kafka.bootstrapServers(), "nexmark", partitions, timeout);
    CorpusEvents source = CorpusEvents.of(CorpusEvents.Corpus.nexmark, seed);
    long bytes = 0;
    try (KafkaEventSender sender = new KafkaEventSender(kafka.bootstrapServers(), "nexmark", "lz4", timeout)) {
      for (long i = 0; i < events; i++) {
        byte[] value = source.next();
        sender.send(i, (int) (i % partitions), value);
        bytes += value.length;
      }
      sender.finish();
    }
    return bytes;
  }

  /** Reads the whole table back and compares it with the generator's events. */
  private int check(PrintWriter out, Table table, Path warehouse) {
    NexmarkGenerator generator = new NexmarkGenerator(seed);
    TableFingerprint expected =
        TableFingerprint.ofCanonical(
            () -> Stream.generate(() -> Canonical.nexmark(generator.next())).limit(events).iterator());
    TableFingerprint actual = TableFingerprint.of(table);
    if (!expected.equals(actual)) {
      throw new IllegalStateException(
          "the table does not match the input: expected " + expected.rows() + " rows, fingerprint "
              + Long.toHexString(expected.hashSum()) + "; found " + actual.rows() + " rows, fingerprint "
              + Long.toHexString(actual.hashSum()));
    }
    say(out, "check: the table holds exactly the %,d input events (full-value fingerprint %s matches)",
        actual.rows(), Long.toHexString(actual.hashSum()));
    say(out, "table %s at %s", TABLE, table.location());
    say(out, "look inside: scripts/floe inspect --table %s --warehouse %s", TABLE, warehouse);
    say(out, "the broker's data stays in %s (%,d MB) until the next demo in %s, or until you delete it",
        warehouse.resolveSibling("kafka"), megabytes(warehouse.resolveSibling("kafka")), warehouse.getParent());
    return FloeCli.EXIT_OK;
  }

  /**
   * The broker's data in MB, without its index files: a running broker's active index files are
   * preallocated (10 MiB each, sparse), which made a small demo's 3 MB read as 182 (helper-89).
   */
  private static long megabytes(Path root) {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile)
          .filter(p -> !p.getFileName().toString().endsWith(".index") && !p.getFileName().toString().endsWith(".timeindex"))
          .mapToLong(p -> p.toFile().length()).sum() >> 20;
    } catch (IOException e) {
      return 0;
    }
  }

  private static void say(PrintWriter out, String format, Object... args) {
    out.printf("floe demo: " + format + "%n", args);
    out.flush();
  }
}
