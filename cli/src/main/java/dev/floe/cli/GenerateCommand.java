package dev.floe.cli;

import dev.floe.cli.CorpusEvents.Corpus;
import dev.floe.kafka.sink.SinkSettings;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code floe generate}: the benchmark corpora as JSON lines to a file or stdout, or as records of
 * a Kafka topic -- byte-identical for a seed.
 */
@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Generate a benchmark corpus as JSON lines (one message per line), or produce it to a Kafka topic "
          + "(one message per record). The same seed gives the same bytes.",
      "nexmark: Nexmark events as Flink's Kafka JSON format writes them (1 person : 3 auctions : 46 bids).",
      "synthetic: flat ~142-byte events (id, user_id, event_type, value, info, ts).",
      "To Kafka, event i (counting from 0) goes to partition i mod N, without a key, so a seed also gives "
          + "the same contents per partition; the producer is idempotent with acks=all."
    },
    footer = {
      "",
      "Examples:",
      "  floe generate nexmark --events 1000000 --seed 7 --output nexmark.jsonl",
      "  floe generate synthetic --events 1000000 | floe write --input - ...",
      "  floe generate nexmark --events 1000000 --bootstrap 127.0.0.1:9092 \\",
      "      --topic nexmark --partitions 4",
      "",
      "Exit codes: 0 written; 1 failed (I/O error, Kafka unreachable within --kafka-timeout, a topic with "
          + "another partition count); 2 bad usage."
    })
final class GenerateCommand implements Callable<Integer> {
  /** Producer compression codecs, as Kafka names them. */
  enum Compression {
    none,
    lz4,
    snappy,
    zstd,
    gzip
  }

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "CORPUS", description = "Corpus: ${COMPLETION-CANDIDATES}.")
  Corpus corpus;

  @Option(names = "--events", required = true, paramLabel = "N", description = "Number of events.")
  long events;

  @Option(names = "--seed", defaultValue = "42", paramLabel = "S", description = "Generator seed (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--output",
      paramLabel = "FILE",
      description = "File to write (default: stdout). Written to a temp file, then renamed.")
  Path output;

  @Option(
      names = "--bootstrap",
      paramLabel = "HOST:PORT",
      description = "Kafka bootstrap servers: produce the events to --topic instead of writing lines.")
  String bootstrap;

  @Option(names = "--topic", paramLabel = "TOPIC", description = "Kafka topic to produce to; created if missing.")
  String topic;

  @Option(
      names = "--partitions",
      paramLabel = "N",
      description = "Partitions of the topic: created with N (default 1); an existing topic must have N.")
  Integer partitions;

  @Option(
      names = "--compression",
      paramLabel = "CODEC",
      description = "Producer compression: ${COMPLETION-CANDIDATES} (default: lz4).")
  Compression compression;

  @Option(
      names = "--kafka-timeout",
      paramLabel = "DURATION",
      description = "How long to wait for the broker to answer before giving up, as floe sink takes it: 15s,"
          + " 500ms, 2m; a bare number is seconds (default: 15s).")
  String kafkaTimeout;

  @Override
  public Integer call() throws IOException {
    validate();
    if (bootstrap != null) {
      return produceToKafka();
    }
    if (output == null) {
      // not System.out, a PrintStream that swallows write errors: a full disk would look like success
      OutputStream stdout = new BufferedOutputStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), 1 << 16);
      writeLines(stdout);
      stdout.flush();
      return FloeCli.EXIT_OK;
    }
    Path target = output.toAbsolutePath();
    try (TempFile temp = TempFile.beside(target)) {
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp.path()), 1 << 20)) {
        writeLines(out);
      }
      temp.moveTo(target);
    }
    PrintWriter err = spec.commandLine().getErr();
    err.printf("floe generate: wrote %,d %s events (seed %d) to %s%n", events, corpus, seed, target);
    err.flush();
    return FloeCli.EXIT_OK;
  }

  /** Checks the flags go together (exit 2 otherwise). */
  private void validate() {
    if (events < 0) {
      throw usage("--events must be >= 0");
    }
    if (bootstrap == null) {
      if (topic != null || partitions != null || compression != null || kafkaTimeout != null) {
        throw usage("--topic, --partitions, --compression, --kafka-timeout go with --bootstrap");
      }
      return;
    }
    if (output != null) {
      throw usage("--output and --bootstrap exclude each other: lines go to a file or records to Kafka");
    }
    if (topic == null || topic.isBlank()) {
      throw usage("--bootstrap needs --topic");
    }
    if (partitions != null && (partitions < 1 || partitions > 100_000)) {
      throw usage("--partitions must be 1..100000");
    }
    if (kafkaTimeout != null) {
      try {
        SinkSettings.duration(kafkaTimeout);
      } catch (IllegalArgumentException e) {
        throw usage("--kafka-timeout " + e.getMessage());
      }
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  private void writeLines(OutputStream out) throws IOException {
    CorpusEvents source = CorpusEvents.of(corpus, seed);
    Progress progress = Progress.start(spec.commandLine().getErr(), "generate " + corpus, events, output != null);
    for (long i = 0; i < events; i++) {
      out.write(source.next());
      out.write('\n');
      progress.step();
    }
    progress.done();
  }

  private int produceToKafka() {
    Duration timeout = kafkaTimeout != null ? SinkSettings.duration(kafkaTimeout) : Duration.ofSeconds(15);
    KafkaTopic target = KafkaTopic.ensure(bootstrap, topic, partitions, timeout);
    String codec = (compression != null ? compression : Compression.lz4).name();
    CorpusEvents source = CorpusEvents.of(corpus, seed);
    Progress progress = Progress.start(spec.commandLine().getErr(), "generate " + corpus, events, true);
    long started = System.nanoTime();
    long bytes = 0;
    try (KafkaEventSender sender = new KafkaEventSender(bootstrap, topic, codec, timeout)) {
      for (long i = 0; i < events; i++) {
        byte[] value = source.next();
        sender.send(i, (int) (i % target.partitions()), value);
        bytes += value.length;
        progress.step();
      }
      sender.finish();
    }
    progress.done();
    double seconds = Math.max(1e-9, (System.nanoTime() - started) / 1e9);
    PrintWriter out = spec.commandLine().getOut();
    out.printf("floe generate: %s events (seed %d) -> Kafka topic %s at %s (%s)%n",
        corpus, seed, topic, bootstrap, target.created() ? "created" : "existing");
    out.printf("events         %,d%n", events);
    out.printf("bytes          %,d of JSON values (compression %s)%n", bytes, codec);
    out.printf("partitions     %d (event i -> partition i mod %d)%n", target.partitions(), target.partitions());
    out.printf("throughput     %,.0f events/s, %,.1f MB/s (%.2f s, every event acknowledged)%n",
        events / seconds, bytes / 1e6 / seconds, seconds);
    out.flush();
    return FloeCli.EXIT_OK;
  }
}
