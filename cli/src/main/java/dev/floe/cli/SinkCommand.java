package dev.floe.cli;

import dev.floe.kafka.sink.BadRecordMode;
import dev.floe.kafka.sink.KafkaIcebergSink;
import dev.floe.kafka.sink.SinkConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code floe sink}: the long-running Kafka -> Iceberg sink ({@link KafkaIcebergSink}), exactly
 * once, until interrupted (Ctrl-C commits what was consumed) or, with {@code --stop-at-end}, until
 * the end of its topics.
 */
@Command(
    name = "sink",
    mixinStandardHelpOptions = true,
    description = {
      "Consume Kafka topics into Iceberg tables, exactly once: each commit stores the consumed offsets in the"
          + " table's snapshot summary, and a restarted sink resumes from there.",
      "Routes: --route TOPIC=NAMESPACE.TABLE (repeatable), or --topic T... with --route-field FIELD and"
          + " --route-value REGEX=NAMESPACE.TABLE rules."
    })
final class SinkCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--bootstrap", required = true, paramLabel = "HOST:PORT", description = "Kafka bootstrap servers.")
  String bootstrap;

  @Option(names = "--group", defaultValue = "floe-sink", description = "Consumer group; also names the offsets kept in the tables (default: ${DEFAULT-VALUE}).")
  String group;

  @Option(names = "--route", paramLabel = "TOPIC=NS.TABLE", description = "Records of TOPIC go to NS.TABLE (repeatable).")
  Map<String, String> routes = new LinkedHashMap<>();

  @Option(names = "--topic", paramLabel = "TOPIC", description = "Topics to read when routing by field (repeatable).")
  List<String> topics = new ArrayList<>();

  @Option(names = "--route-field", paramLabel = "FIELD", description = "A top-level JSON string field whose value picks the table.")
  String routeField;

  @Option(names = "--route-value", paramLabel = "REGEX=NS.TABLE", description = "With --route-field: records whose value matches REGEX go to NS.TABLE (repeatable, first match wins).")
  Map<String, String> routeValues = new LinkedHashMap<>();

  @Mixin CatalogOptions catalog;

  @Option(names = "--schema", paramLabel = "FILE", description = "Iceberg schema JSON for tables that do not exist yet (else they must exist).")
  Path schema;

  @Option(names = "--partition-by", paramLabel = "SPEC", description = "Partitioning of created tables, e.g. 'bucket(4,id),day(ts)'.")
  String partitionBy;

  @Option(names = "--commit-interval", defaultValue = "10", paramLabel = "SECONDS", description = "Commit at least this often (default: ${DEFAULT-VALUE} s).")
  double commitSeconds;

  @Option(names = "--commit-records", defaultValue = "1000000", paramLabel = "N", description = "... or after N records (default: ${DEFAULT-VALUE}).")
  long commitRecords;

  @Option(names = "--commit-bytes", defaultValue = "256MiB", converter = ByteSize.class, paramLabel = "SIZE", description = "... or after SIZE of payload (default: ${DEFAULT-VALUE}).")
  long commitBytes;

  @Option(names = "--on-error", defaultValue = "fail", paramLabel = "fail|skip|dlq", description = "Bad records: stop naming topic, partition, offset and reason; skip and count; or send to --dlq-topic (default: ${DEFAULT-VALUE}).")
  String onError;

  @Option(names = "--dlq-topic", paramLabel = "TOPIC", description = "Dead-letter topic for --on-error dlq.")
  String dlqTopic;

  @Option(names = "--upsert", description = "Replace rows by the tables' identifier fields (format v2 tables).")
  boolean upsert;

  @Option(names = "--stop-at-end", description = "Stop once everything up to the end of the topics (as of start) is committed.")
  boolean stopAtEnd;

  @Option(names = "--encode-threads", defaultValue = "1", paramLabel = "N", description = "Threads encoding each file's columns (default: ${DEFAULT-VALUE}); more help when cores are idle.")
  int encodeThreads;

  @Option(names = "--no-decode-ahead", description = "Decode and encode on one thread per table (default: a decode thread runs a batch ahead of the writer thread).")
  boolean noDecodeAhead;

  @Option(names = "--consumer-property", paramLabel = "KEY=VALUE", description = "A Kafka client setting (repeatable): the consumer's; prefixed producer., the dead-letter producer's.")
  Map<String, String> consumerProperties = new LinkedHashMap<>();

  @Override
  public Integer call() throws Exception {
    validate();
    PrintWriter out = spec.commandLine().getOut();
    Catalog opened = catalog.open();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config(opened))) {
      CountDownLatch finished = new CountDownLatch(1);
      Thread onInterrupt = new Thread(() -> {
        sink.stop();
        awaitQuietly(finished);
      }, "floe-sink-shutdown");
      Runtime.getRuntime().addShutdownHook(onInterrupt);
      SinkProgress progress = SinkProgress.start(sink.metrics(), out);
      long started = System.nanoTime();
      try {
        sink.run();
      } finally {
        progress.stop();
        finished.countDown();
        removeHook(onInterrupt);
      }
      SinkProgress.summary(sink.metrics(), (System.nanoTime() - started) / 1e9, out);
    } finally {
      if (opened instanceof AutoCloseable c) {
        c.close();
      }
    }
    return FloeCli.EXIT_OK;
  }

  private void validate() {
    catalog.validate(spec, "sink");
    if (routeField == null && routes.isEmpty()) {
      throw usage("give --route TOPIC=NS.TABLE, or --topic with --route-field and --route-value");
    }
    if (routeField != null && (topics.isEmpty() || routeValues.isEmpty())) {
      throw usage("--route-field needs --topic and at least one --route-value REGEX=NS.TABLE");
    }
    if (mode() == BadRecordMode.DEAD_LETTER && dlqTopic == null) {
      throw usage("--on-error dlq needs --dlq-topic");
    }
    if (partitionBy != null && schema == null) {
      throw usage("--partition-by applies to created tables: give --schema too");
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  private BadRecordMode mode() {
    return switch (onError) {
      case "fail" -> BadRecordMode.FAIL;
      case "skip" -> BadRecordMode.SKIP;
      case "dlq" -> BadRecordMode.DEAD_LETTER;
      default -> throw usage("--on-error must be fail, skip or dlq, not '" + onError + "'");
    };
  }

  private SinkConfig config(Catalog opened) {
    SinkConfig.Builder config = SinkConfig.builder(opened, bootstrap, group);
    routes.forEach((topic, table) -> config.route(topic, TableIdentifier.parse(table)));
    if (routeField != null) {
      config.topics(topics).routeField(routeField);
      routeValues.forEach((regex, table) -> config.routeValue(regex, TableIdentifier.parse(table)));
    }
    if (schema != null) {
      Schema parsed = IcebergSchemaFile.read(schema);
      PartitionSpec partitioning =
          partitionBy == null ? PartitionSpec.unpartitioned() : PartitionSpecs.parse(partitionBy, parsed);
      config.createTables(parsed, partitioning, Map.of(TableProperties.FORMAT_VERSION, "2"));
    }
    consumerProperties.forEach(config::consumerProperty);
    return config
        .commitEvery(Duration.ofMillis((long) (commitSeconds * 1000)), commitRecords, commitBytes)
        .badRecords(mode(), dlqTopic)
        .upsert(upsert)
        .stopAtEnd(stopAtEnd)
        .encodeThreads(encodeThreads)
        .decodeAhead(!noDecodeAhead)
        .build();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running: it waits for us.
    }
  }
}
