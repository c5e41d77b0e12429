package dev.floe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.corpus.NexmarkGenerator;
import dev.floe.corpus.NexmarkJson;
import dev.floe.iceberg.Catalogs;
import dev.floe.kafka.LocalKafkaBroker;
import dev.floe.testing.Canonical;
import dev.floe.testing.TableFingerprint;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code floe sink} as a separate process against a real broker. */
class SinkCommandTest {
  @TempDir static Path brokerDir;
  static LocalKafkaBroker kafka;
  @TempDir Path dir;

  @BeforeAll
  static void start() {
    kafka = LocalKafkaBroker.start(brokerDir);
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  @Test
  void sinkCreatesThePartitionedTableAndDeadLettersBadRecords() throws Exception {
    kafka.createTopic("in", 2);
    kafka.createTopic("dead", 1);
    List<String> expected = new ArrayList<>();
    List<byte[]> messages = new ArrayList<>();
    NexmarkGenerator generator = new NexmarkGenerator(9);
    for (int i = 0; i < 5000; i++) {
      var event = generator.next();
      expected.add(Canonical.nexmark(event));
      messages.add(NexmarkJson.toBytes(event));
      if (i % 1000 == 500) {
        messages.add(("{\"event_type\": \"bad " + i + "\"}").getBytes(StandardCharsets.UTF_8));
      }
    }
    produce("in", messages);

    Path warehouse = dir.resolve("warehouse");
    CliProcess.Result r =
        CliProcess.run(dir, "sink", "--bootstrap", kafka.bootstrapServers(), "--route", "in=db.events",
            "--warehouse", warehouse.toString(), "--schema", schemaFile(), "--partition-by", "bucket(4,bid.auction)",
            "--on-error", "dlq", "--dlq-topic", "dead", "--commit-records", "2000", "--stop-at-end");
    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertTrue(r.out().contains("5 bad (5 dead-lettered)"), r.out());

    Catalog catalog = Catalogs.embedded(warehouse);
    try {
      Table table = catalog.loadTable(TableIdentifier.of("db", "events"));
      assertEquals(TableFingerprint.ofCanonical(expected), TableFingerprint.of(table));
      assertEquals("bucket[4]", table.spec().fields().getFirst().transform().toString());
    } finally {
      ((AutoCloseable) catalog).close();
    }
    assertEquals(5, count("dead"));

    // Run again: everything is already in the table, nothing is written twice.
    CliProcess.Result again =
        CliProcess.run(dir, "sink", "--bootstrap", kafka.bootstrapServers(), "--route", "in=db.events",
            "--warehouse", warehouse.toString(), "--on-error", "dlq", "--dlq-topic", "dead", "--stop-at-end");
    assertEquals(0, again.exitCode(), again.out() + again.err());
    assertTrue(again.out().contains("0 consumed"), again.out());
  }

  @Test
  void routesAreRequired() throws Exception {
    CliProcess.Result r =
        CliProcess.run(dir, "sink", "--bootstrap", kafka.bootstrapServers(), "--warehouse", dir.toString());
    assertEquals(FloeCli.EXIT_USAGE, r.exitCode());
    assertTrue(r.err().contains("--route"), r.err());
  }

  /** floe sink's flags are the sink's settings: one per setting, with its documentation. */
  @Test
  void everySinkSettingIsAFlag() throws Exception {
    CliProcess.Result help = CliProcess.run(dir, "sink", "--help");
    assertEquals(0, help.exitCode(), help.err());
    for (var key : dev.floe.kafka.sink.SinkSettings.definition().configKeys().values()) {
      String name = key.name.replace('.', '-');
      assertTrue(help.out().contains("--" + name) || help.out().contains("--[no-]" + name), name + " in: " + help.out());
      assertTrue(help.out().replaceAll("\\s+", " ").contains(SinkCommand.asFlags(key.documentation).substring(0, 20)),
          key.name);
    }
    CliProcess.Result wrong = CliProcess.run(dir, "sink", "--bootstrap", "localhost:1", "--warehouse", dir.toString(),
        "--route", "a=db.a", "--commit-bytes", "lots");
    assertEquals(FloeCli.EXIT_USAGE, wrong.exitCode());
    assertTrue(wrong.err().contains("invalid value lots for --commit-bytes"), wrong.err());
    // the consumer alone would read another group or cluster than the offsets and clients say
    CliProcess.Result group = CliProcess.run(dir, "sink", "--bootstrap", "localhost:1", "--warehouse", dir.toString(),
        "--route", "a=db.a", "--consumer-property", "group.id=other");
    assertEquals(FloeCli.EXIT_USAGE, group.exitCode());
    assertTrue(group.err().contains("--consumer-property group.id: give it with --group"), group.err());
    // the sink's own refusals name the flags, not the settings behind them (helper-61)
    CliProcess.Result unused = CliProcess.run(dir, "sink", "--bootstrap", "localhost:1", "--warehouse", dir.toString(),
        "--route", "a=db.a", "--dlq-topic", "dead", "--on-error", "skip");
    assertEquals(FloeCli.EXIT_USAGE, unused.exitCode());
    assertTrue(unused.err().contains("(--on-error = dlq)"), unused.err());
  }

  /**
   * Where a Kafka client would wait without a word, the sink fails at its start naming what is
   * wrong -- a broker that does not answer within --kafka-timeout, a topic that does not exist
   * when it is to stop at the end of its topics -- or creates the missing dead-letter topic.
   */
  @Test
  void whatWouldStallTheSinkFailsItsStartByNameOrIsCreated() throws Exception {
    CliProcess.Result unreachable = CliProcess.run(dir, "sink", "--bootstrap", "127.0.0.1:1", "--route", "in=db.events",
        "--warehouse", dir.resolve("w1").toString(), "--schema", schemaFile(), "--kafka-timeout", "2s", "--stop-at-end");
    assertEquals(FloeCli.EXIT_FAILED, unreachable.exitCode(), unreachable.out() + unreachable.err());
    assertTrue(unreachable.err().contains("no answer from Kafka at 127.0.0.1:1 within 2 s"), unreachable.err());
    assertTrue(unreachable.err().contains("--kafka-timeout sets the wait"), "the flag, not the setting: " + unreachable.err());

    // A dead-letter topic that does not exist is created with the cluster's defaults (as Kafka
    // Connect does): before, each bad record waited a minute for it, without a word.
    kafka.createTopic("bad-in", 2);
    produce("bad-in", List.of("not json".getBytes(StandardCharsets.UTF_8), "{".getBytes(StandardCharsets.UTF_8)));
    CliProcess.Result madeDeadLetters = CliProcess.run(dir, "sink", "--bootstrap", kafka.bootstrapServers(),
        "--route", "bad-in=db.events", "--warehouse", dir.resolve("w2").toString(), "--schema", schemaFile(),
        "--dlq-topic", "made-dead", "--stop-at-end"); // the topic alone sends bad records there
    assertEquals(0, madeDeadLetters.exitCode(), madeDeadLetters.out() + madeDeadLetters.err());
    assertEquals(2, count("made-dead"));

    CliProcess.Result noTopic = CliProcess.run(dir, "sink", "--bootstrap", kafka.bootstrapServers(),
        "--route", "no-such-topic=db.events", "--warehouse", dir.resolve("w3").toString(), "--schema", schemaFile(),
        "--stop-at-end");
    assertEquals(FloeCli.EXIT_FAILED, noTopic.exitCode(), noTopic.out() + noTopic.err());
    assertTrue(noTopic.err().contains("topics [no-such-topic] do not exist"), noTopic.err());
    // Upserts into a table the schema would create without identifier fields: refused first.
    CliProcess.Result keyless = CliProcess.run(dir, "sink", "--bootstrap", kafka.bootstrapServers(),
        "--route", "bad-in=db.events", "--warehouse", dir.resolve("w4").toString(), "--schema", schemaFile(),
        "--upsert", "--stop-at-end");
    assertEquals(FloeCli.EXIT_FAILED, keyless.exitCode(), keyless.out() + keyless.err());
    assertTrue(keyless.err().contains("table db.events has no identifier fields"), keyless.err());
    // ... and into such a table that exists (w2's, made above), naming it (helper-89: "the table")
    CliProcess.Result existing = CliProcess.run(dir, "sink", "--bootstrap", kafka.bootstrapServers(),
        "--route", "bad-in=db.events", "--warehouse", dir.resolve("w2").toString(), "--upsert", "--stop-at-end");
    assertEquals(FloeCli.EXIT_FAILED, existing.exitCode(), existing.out() + existing.err());
    assertTrue(existing.err().contains("table floe.db.events has no identifier fields")
        || existing.err().contains("table db.events has no identifier fields"), existing.err());
    // A sink that could not start creates no table (helper-61: each run above left an empty one).
    for (String warehouse : List.of("w1", "w3", "w4")) {
      try (AutoCloseable catalog = (AutoCloseable) Catalogs.embedded(dir.resolve(warehouse))) {
        assertFalse(((Catalog) catalog).tableExists(TableIdentifier.of("db", "events")), warehouse + " has no table");
      }
    }
  }

  /**
   * The sink's own warnings reach the operator on stderr (helper-69: the CLI bound SLF4J to its
   * no-op provider, so fences, lost partitions and skipped records were never shown), and the
   * libraries' routine ones do not.
   */
  @Test
  void theSinksWarningsAreShown() throws Exception {
    kafka.createTopic("skipped-in", 2);
    produce("skipped-in", java.util.Arrays.asList("not json".getBytes(StandardCharsets.UTF_8), null));
    CliProcess.Result r = CliProcess.run(dir, "sink", "--bootstrap", kafka.bootstrapServers(),
        "--route", "skipped-in=db.events", "--warehouse", dir.resolve("w5").toString(), "--schema", schemaFile(),
        "--on-error", "skip", "--stop-at-end");
    assertEquals(0, r.exitCode(), r.out() + r.err());
    List<String> warnings = r.errLines().stream().filter(l -> l.contains(" WARN ")).toList();
    assertEquals(1, warnings.size(), r.err());
    assertTrue(warnings.getFirst().contains("skipped bad record message 0 (topic skipped-in, partition 0, offset 0)"),
        r.err());
    // the tombstone is accounted for too (helper-89: 2 consumed, 0 written, 1 bad, and no word of the other)
    assertTrue(r.out().contains("records       2 consumed, 0 written, 1 bad (0 dead-lettered), 1 tombstones skipped"), r.out());
  }

  /**
   * SIGTERM, then SIGHUP twice (Ctrl-C takes the same path), stops the sink with a last commit of what it
   * took, its summary, and the status a signal gives. In a shutdown hook that commit failed unseen:
   * Iceberg's worker pool was being shut down by a hook of its own (helper-89; SIGHUP: helper-92).
   * SIGINT is not sent: shells start background jobs with it ignored, and so this JVM may be.
   */
  @Test
  void aSignalCommitsWhatTheSinkTookAndSaysSo() throws Exception {
    kafka.createTopic("signalled", 2);
    List<String> expected = new ArrayList<>();
    NexmarkGenerator generator = new NexmarkGenerator(21);
    Path warehouse = dir.resolve("w6");
    for (int round = 1; round <= 2; round++) {
      List<byte[]> messages = new ArrayList<>();
      for (int i = 0; i < 3000; i++) {
        var event = generator.next();
        expected.add(Canonical.nexmark(event));
        messages.add(NexmarkJson.toBytes(event));
      }
      produce("signalled", messages);
      try (CliProcess.Running sink = CliProcess.start(dir, "sink", "--bootstrap", kafka.bootstrapServers(),
          "--route", "signalled=db.signalled", "--warehouse", warehouse.toString(), "--schema", schemaFile(),
          "--commit-interval", "10m")) {
        sink.awaitOut("sink: 3,000 records consumed", Duration.ofMinutes(2));
        boolean hangUp = round == 2 && !hangUpIgnored();
        if (hangUp) {
          sink.signal("HUP");
          sink.signal("HUP"); // a closed terminal sends two (helper-93: the second halted the commit)
        } else {
          sink.terminate();
        }
        CliProcess.Result r = sink.await(Duration.ofMinutes(2));
        assertEquals(hangUp ? 129 : 143, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("records       3,000 consumed, 3,000 written"), r.out());
        assertTrue(r.out().contains("commits       1,"), r.out());
      }
      Catalog catalog = Catalogs.embedded(warehouse);
      try {
        assertEquals(TableFingerprint.ofCanonical(expected), TableFingerprint.of(catalog.loadTable(TableIdentifier.of("db", "signalled"))),
            "round " + round);
      } finally {
        ((AutoCloseable) catalog).close();
      }
    }
  }

  /** Whether this JVM, and so the ones it starts, ignores SIGHUP (under nohup): bit 0 of SigIgn. */
  private static boolean hangUpIgnored() throws java.io.IOException {
    for (String line : java.nio.file.Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseLong(line.substring("SigIgn:".length()).strip(), 16) & 1) != 0;
      }
    }
    return true;
  }

  private static String schemaFile() {
    return Path.of("schemas", "nexmark.schema.json").toAbsolutePath().toString();
  }

  private static void produce(String topic, List<byte[]> messages) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      for (int i = 0; i < messages.size(); i++) {
        producer.send(new ProducerRecord<>(topic, i % 2, null, messages.get(i)));
      }
    }
  }

  private static long count(String topic) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      return consumer.endOffsets(List.of(tp), Duration.ofSeconds(10)).get(tp);
    }
  }
}
