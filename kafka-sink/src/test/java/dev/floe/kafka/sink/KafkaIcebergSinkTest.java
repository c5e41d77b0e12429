package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.BUCKETS;
import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.NEXMARK;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static dev.floe.kafka.sink.SinkFixture.seqById;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.corpus.NexmarkEvent;
import dev.floe.kafka.RoundRobinProducer;
import dev.floe.testing.TableFingerprint;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The sink against a real KRaft broker on loopback and the embedded catalog: every record lands
 * exactly once, bad records follow their policy, concurrent sinks and a broker restart lose
 * nothing.
 */
class KafkaIcebergSinkTest extends BrokerAndCatalog {
  KafkaIcebergSinkTest() {
    super("nexmark");
  }

  private SinkConfig.Builder sink(String topic, String table, String group) {
    return SinkConfig.builder(catalog, kafka.bootstrapServers(), group)
        .route(topic, TableIdentifier.of("nexmark", table))
        .createTables(NEXMARK, BUCKETS, V2)
        .stopAtEnd(true);
  }

  /**
   * A consumer that cannot be made (a bad consumer property) fails the constructor without leaving
   * the dead-letter producer's and the admin client's threads behind (before, they ran on).
   */
  @Test
  void aSinkThatCannotBeMadeLeavesNoKafkaClientsBehind() {
    SinkConfig config = sink("never-read", "never_written", "unmade")
        .badRecords(BadRecordPolicy.DEAD_LETTER, "never-read-dead")
        .consumerProperty("group.protocol", "no-such-protocol")
        .build();
    List<String> before = kafkaClientThreads();
    assertThrows(RuntimeException.class, () -> new KafkaIcebergSink(config));
    assertEquals(before, kafkaClientThreads());
  }

  /** Live threads of Kafka producers and admin clients. */
  private static List<String> kafkaClientThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(name -> name.startsWith("kafka-producer-network-thread") || name.startsWith("kafka-admin-client-thread"))
        .sorted()
        .toList();
  }

  @Test
  void nexmarkEventsLandExactlyOnceInABucketedTable() {
    List<NexmarkEvent> events = SinkFixture.events(1, 200_000);
    kafka.createTopic("events", 4);
    SinkFixture.produce(kafka.bootstrapServers(), "events", 4, SinkFixture.json(events));

    // Two encode threads here (the other tests use one): the parallel column path end to end.
    try (KafkaIcebergSink sink =
        new KafkaIcebergSink(
            sink("events", "events", "e2e")
                .commitEvery(Duration.ofMinutes(1), 60_000, Long.MAX_VALUE)
                .encodeThreads(2)
                .build())) {
      sink.run();
      assertEquals(200_000, sink.metrics().getRowsWritten());
    }
    Table table = catalog.loadTable(TableIdentifier.of("nexmark", "events"));
    assertEquals(SinkFixture.expected(events), TableFingerprint.of(table));
    Map<TopicPartition, Long> stored = SinkFixture.storedOffsets(table, "e2e");
    for (int p = 0; p < 4; p++) {
      assertEquals(50_000L, stored.get(new TopicPartition("events", p)), "partition " + p);
    }
    assertTrue(count(table) >= 4, "one commit per 60,000 records: " + count(table));
  }

  /**
   * The sink's memory budget holds the rows its open files buffer too: with a small budget the
   * files write their row groups early -- more row groups, the same rows -- instead of holding a
   * whole cycle in memory.
   */
  @Test
  void openFilesWriteRowGroupsEarlyWithinTheBudget() throws Exception {
    List<NexmarkEvent> events = SinkFixture.events(10, 40_000);
    kafka.createTopic("budget", 4);
    SinkFixture.produce(kafka.bootstrapServers(), "budget", 4, SinkFixture.json(events));
    try (KafkaIcebergSink sink = new KafkaIcebergSink(
        sink("budget", "budget", "budget").batches(1000, 1 << 20, 2 << 20).build())) {
      sink.run();
    }
    Table table = catalog.loadTable(TableIdentifier.of("nexmark", "budget"));
    assertEquals(SinkFixture.expected(events), TableFingerprint.of(table));
    int files = 0;
    int rowGroups = 0;
    try (var tasks = table.newScan().planFiles()) {
      for (var task : tasks) {
        files++;
        try (var reader = org.apache.parquet.hadoop.ParquetFileReader.open(
            new org.apache.parquet.io.LocalInputFile(Path.of(task.file().location().replace("file:", ""))))) {
          rowGroups += reader.getRowGroups().size();
        }
      }
    }
    // 40,000 events are about 14 MB of JSON and 5 MB of Parquet: far more than the 1.5 MiB the
    // budget leaves the open files, so each of them wrote several row groups.
    assertTrue(rowGroups >= 2 * files, rowGroups + " row groups in " + files + " files");
  }

  /**
   * A batch budget with room for about one batch, decoding on the writer thread: a batch the
   * writer hands back while the consumer waits for room must not keep that room as a spare (the
   * consumer waited for it forever).
   */
  @Test
  void aBudgetOfAboutOneBatchNeverStallsTheConsumer() {
    List<NexmarkEvent> events = SinkFixture.events(11, 40_000);
    kafka.createTopic("one-batch", 4);
    SinkFixture.produce(kafka.bootstrapServers(), "one-batch", 4, SinkFixture.json(events));
    assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
      try (KafkaIcebergSink sink = new KafkaIcebergSink(
          sink("one-batch", "one_batch", "one-batch").batches(1000, 1 << 20, 2 << 20).decodeAhead(false).build())) {
        sink.run();
      }
    });
    Table table = catalog.loadTable(TableIdentifier.of("nexmark", "one_batch"));
    assertEquals(SinkFixture.expected(events), TableFingerprint.of(table));
  }

  private static long count(Table table) {
    long n = 0;
    for (var ignored : table.snapshots()) {
      n++;
    }
    return n;
  }

  /** 300 good events with 6 bad messages among them, all on partition 0 of a 1-partition topic. */
  private static List<byte[]> withBadMessages(List<NexmarkEvent> good) {
    List<byte[]> out = new ArrayList<>(SinkFixture.json(good));
    out.add(50, "{\"event_type\": \"two\"}".getBytes(StandardCharsets.UTF_8));
    out.add(100, "not json".getBytes(StandardCharsets.UTF_8));
    out.add(150, new byte[] {'{', '"', (byte) 0xff, '"', ':', '1', '}'});
    out.add(200, new byte[0]);
    out.add(250, "{\"event_type\": 2, \"bid\": {\"auction\": 1.5}}".getBytes(StandardCharsets.UTF_8));
    out.add(290, "[1,2]".getBytes(StandardCharsets.UTF_8));
    return out;
  }

  private static final int[] BAD_OFFSETS = {50, 100, 150, 200, 250, 290};

  @Test
  void failPolicyStopsNamingTopicPartitionOffsetAndReason() {
    kafka.createTopic("bad-fail", 1);
    SinkFixture.produce(kafka.bootstrapServers(), "bad-fail", 1, withBadMessages(SinkFixture.events(2, 300)));
    try (KafkaIcebergSink sink = new KafkaIcebergSink(sink("bad-fail", "bad_fail", "fail").build())) {
      SinkException e = assertThrows(SinkException.class, sink::run);
      assertTrue(e.getMessage().contains("topic bad-fail, partition 0, offset 50"), e.getMessage());
      assertTrue(e.getMessage().contains("event_type"), e.getMessage());
    }
    Table table = catalog.loadTable(TableIdentifier.of("nexmark", "bad_fail"));
    assertEquals(null, table.currentSnapshot(), "nothing of the failed batch was committed");
  }

  /**
   * Commits overlap the next cycle: the cycle holding a bad record fails under FAIL while the
   * cycles before it -- committed in the background, perhaps after the bad batch was decoded --
   * have landed whole.
   */
  @Test
  void failPolicyStopsAfterTheCyclesBeforeTheBadRecordHaveLanded() {
    List<NexmarkEvent> events = SinkFixture.events(9, 6_000);
    List<byte[]> messages = new ArrayList<>(SinkFixture.json(events));
    int bad = 4_500;
    messages.set(bad, "{\"event_type\": \"two\"}".getBytes(StandardCharsets.UTF_8));
    kafka.createTopic("bad-later", 1);
    SinkFixture.produce(kafka.bootstrapServers(), "bad-later", 1, messages);
    try (KafkaIcebergSink sink =
        new KafkaIcebergSink(
            sink("bad-later", "bad_later", "fail-later")
                .commitEvery(Duration.ofMinutes(1), 1_000, Long.MAX_VALUE)
                .batches(250, 1 << 20, 64 << 20)
                .build())) {
      SinkException e = assertThrows(SinkException.class, sink::run);
      assertTrue(e.getMessage().contains("topic bad-later, partition 0, offset " + bad), e.getMessage());
    }
    Table table = catalog.loadTable(TableIdentifier.of("nexmark", "bad_later"));
    long landed = SinkFixture.storedOffsets(table, "fail-later").get(new TopicPartition("bad-later", 0));
    // Cycles end after the poll that reaches 1,000 records (at most 1,000 per poll): the last cut
    // before the bad record is within 2,000 records of it.
    assertTrue(landed > bad - 2_000 && landed <= bad, "committed up to offset " + landed);
    assertEquals(
        SinkFixture.expected(events.subList(0, (int) landed)),
        TableFingerprint.of(table),
        "the table holds exactly the records before the committed offset");
  }

  @Test
  void skipPolicyKeepsEveryGoodRecordAndCountsTheBadOnes() {
    List<NexmarkEvent> good = SinkFixture.events(3, 300);
    kafka.createTopic("bad-skip", 1);
    SinkFixture.produce(kafka.bootstrapServers(), "bad-skip", 1, withBadMessages(good));
    // Decoding on the writer thread and committing on the consumer thread here (the other tests
    // decode a batch ahead and commit in the background): those paths end to end.
    try (KafkaIcebergSink sink =
        new KafkaIcebergSink(
            sink("bad-skip", "bad_skip", "skip")
                .badRecords(BadRecordPolicy.SKIP, null)
                .decodeAhead(false)
                .overlapCommits(false)
                .build())) {
      sink.run();
      assertEquals(6, sink.metrics().getBadRecords());
    }
    Table table = catalog.loadTable(TableIdentifier.of("nexmark", "bad_skip"));
    assertEquals(SinkFixture.expected(good), TableFingerprint.of(table));
    assertEquals(306L, SinkFixture.storedOffsets(table, "skip").get(new TopicPartition("bad-skip", 0)));
  }

  @Test
  void deadLetterPolicySendsTheOriginalBytesWithTheirSource() {
    List<NexmarkEvent> good = SinkFixture.events(4, 300);
    List<byte[]> messages = withBadMessages(good);
    kafka.createTopic("bad-dlq", 1);
    kafka.createTopic("bad-dlq-dead", 1);
    SinkFixture.produce(kafka.bootstrapServers(), "bad-dlq", 1, messages);
    try (KafkaIcebergSink sink =
        new KafkaIcebergSink(
            sink("bad-dlq", "bad_dlq", "dlq").badRecords(BadRecordPolicy.DEAD_LETTER, "bad-dlq-dead").build())) {
      sink.run();
      assertEquals(6, sink.metrics().getDeadLettered());
    }
    Table table = catalog.loadTable(TableIdentifier.of("nexmark", "bad_dlq"));
    assertEquals(SinkFixture.expected(good), TableFingerprint.of(table));

    List<ConsumerRecord<byte[], byte[]>> dead = SinkFixture.readAll(kafka.bootstrapServers(), "bad-dlq-dead", 6);
    assertEquals(6, dead.size());
    for (int i = 0; i < 6; i++) {
      ConsumerRecord<byte[], byte[]> r = dead.get(i);
      assertEquals(new String(messages.get(BAD_OFFSETS[i]), StandardCharsets.ISO_8859_1),
          new String(r.value(), StandardCharsets.ISO_8859_1), "original bytes of offset " + BAD_OFFSETS[i]);
      assertEquals("bad-dlq", header(r, DeadLetters.SOURCE_TOPIC));
      assertEquals("0", header(r, DeadLetters.SOURCE_PARTITION));
      assertEquals(Integer.toString(BAD_OFFSETS[i]), header(r, DeadLetters.SOURCE_OFFSET));
      assertTrue(!header(r, DeadLetters.ERROR).isBlank());
    }
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
    return new String(r.headers().lastHeader(key).value(), StandardCharsets.UTF_8);
  }

  @Test
  void twoSinksOnDisjointPartitionsOfOneTableLoseNothing() throws Exception {
    List<NexmarkEvent> events = SinkFixture.events(5, 40_000);
    kafka.createTopic("shared", 4);
    // Both sinks run until stopped, and the events are produced only once each sink holds
    // partitions: produced earlier, the first sink to join could drain the topic alone.
    SinkConfig config =
        sink("shared", "shared", "pair")
            .stopAtEnd(false)
            .commitEvery(Duration.ofMillis(300), 2_000, Long.MAX_VALUE)
            .build();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (KafkaIcebergSink first = new KafkaIcebergSink(config);
        KafkaIcebergSink second = new KafkaIcebergSink(config)) {
      Future<?> a = threads.submit(first::run);
      Future<?> b = threads.submit(second::run);
      awaitTwoMembersWithPartitions("pair");
      SinkFixture.produce(kafka.bootstrapServers(), "shared", 4, SinkFixture.json(events));
      awaitCommittedRows(TableIdentifier.of("nexmark", "shared"), events.size());
      first.stop();
      second.stop();
      a.get();
      b.get();
      assertTrue(first.metrics().getCommits() > 0 && second.metrics().getCommits() > 0,
          "both sinks committed: " + first.metrics().getCommits() + " and " + second.metrics().getCommits());
    } finally {
      threads.shutdownNow();
    }
    Table table = catalog.loadTable(TableIdentifier.of("nexmark", "shared"));
    assertEquals(SinkFixture.expected(events), TableFingerprint.of(table));
  }

  @Test
  void fieldsTheTableLacksAreCountedNotLostUnseen() throws Exception {
    kafka.createTopic("extra", 1);
    List<byte[]> messages = new ArrayList<>();
    Map<Long, Long> expected = new HashMap<>();
    for (int i = 0; i < 60; i++) {
      String extra = i % 3 == 0 ? ",\"note\":\"n" + i + "\"" : "";
      messages.add(("{\"id\":" + i + ",\"seq\":" + i + ",\"kind\":\"k\"" + extra + "}").getBytes(StandardCharsets.UTF_8));
      expected.put((long) i, (long) i);
    }
    SinkFixture.produce(kafka.bootstrapServers(), "extra", 1, messages);
    SinkConfig config = SinkConfig.builder(catalog, kafka.bootstrapServers(), "extra")
        .route("extra", TableIdentifier.of("nexmark", "extra"))
        .createTables(KEYED, PartitionSpec.unpartitioned(), V2)
        .stopAtEnd(true)
        .build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
      assertEquals(20, sink.metrics().getUnknownFieldValues(), "every 'note' value is counted");
    }
    assertEquals(expected, seqById(catalog.loadTable(TableIdentifier.of("nexmark", "extra"))));
  }

  @Test
  void aColumnAddedARenameAndANewSpecWhileTheSinkRunsApplyFromTheNextCycle() throws Exception {
    kafka.createTopic("changing", 2);
    TableIdentifier id = TableIdentifier.of("nexmark", "changing");
    Schema before = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "name", Types.StringType.get()));
    catalog.createTable(id, before, PartitionSpec.builderFor(before).bucket("id", 2).build(), V2);
    SinkConfig config = SinkConfig.builder(catalog, kafka.bootstrapServers(), "changing")
        .route("changing", id)
        .commitEvery(Duration.ofMillis(300), 1_000_000, Long.MAX_VALUE)
        .build();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      Future<?> running = thread.submit(sink::run);
      List<byte[]> first = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        first.add(("{\"id\":" + i + ",\"name\":\"n" + i + "\"}").getBytes(StandardCharsets.UTF_8));
      }
      SinkFixture.produce(kafka.bootstrapServers(), "changing", 2, first);
      awaitCommittedRows(id, 100);

      // Someone alters the table while the sink runs: a new column, a rename, a new partition field.
      Table table = catalog.loadTable(id);
      table.updateSchema().addColumn("city", Types.StringType.get()).renameColumn("name", "full_name").commit();
      table.updateSpec().addField("city").commit();

      SinkFixture.produce(kafka.bootstrapServers(), "changing", 2, renamedRows(100, 200));
      awaitCommittedRows(id, 200);

      // Then another codec alone (before, a property changed alone applied only after a restart).
      table.updateProperties().set(TableProperties.PARQUET_COMPRESSION, "snappy").commit();
      SinkFixture.produce(kafka.bootstrapServers(), "changing", 2, renamedRows(200, 300));
      awaitCommittedRows(id, 300);
      sink.stop();
      running.get();
    } finally {
      thread.shutdownNow();
    }

    Table table = catalog.loadTable(id);
    Map<Long, List<Object>> rows = dev.floe.testing.TableRows.byId(table, "id", "full_name", "city");
    Map<Long, List<Object>> expected = new java.util.TreeMap<>();
    for (long i = 0; i < 300; i++) {
      expected.put(i, java.util.Arrays.asList("n" + i, i < 100 ? null : "c" + (i % 3)));
    }
    assertEquals(expected, rows, "rows before the change keep their values under the new name; rows after have all three");
    int newSpec = table.spec().specId();
    try (var files = table.newScan().includeColumnStats().planFiles()) {
      for (var task : files) {
        long lowestId = org.apache.iceberg.types.Conversions.<Long>fromByteBuffer(Types.LongType.get(),
            task.file().lowerBounds().get(1));
        boolean afterChange = lowestId >= 100;
        assertEquals(afterChange ? newSpec : 0, task.file().specId(),
            "files of the second cycle are written for the new spec: " + task.file().location());
        try (var reader = org.apache.parquet.hadoop.ParquetFileReader.open(
            new org.apache.parquet.io.LocalInputFile(Path.of(task.file().location().replace("file:", ""))))) {
          assertEquals(lowestId >= 200 ? "SNAPPY" : "ZSTD",
              reader.getFooter().getBlocks().getFirst().getColumns().getFirst().getCodec().name(),
              "files of the third cycle with the codec the table asks for then: " + task.file().location());
        }
      }
    }
  }

  /** Rows {@code from..to-1} after the rename: {"id":i,"full_name":"n<i>","city":"c<i % 3>"}. */
  private static List<byte[]> renamedRows(int from, int to) {
    List<byte[]> rows = new ArrayList<>();
    for (int i = from; i < to; i++) {
      rows.add(("{\"id\":" + i + ",\"full_name\":\"n" + i + "\",\"city\":\"c" + (i % 3) + "\"}")
          .getBytes(StandardCharsets.UTF_8));
    }
    return rows;
  }

  /** Waits until consumer group {@code group} has two members, each assigned partitions. */
  private static void awaitTwoMembersWithPartitions(String group) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (true) {
        ConsumerGroupDescription description =
            admin.describeConsumerGroups(List.of(group)).all().get().get(group);
        if (description.members().size() == 2
            && description.members().stream().allMatch(m -> !m.assignment().topicPartitions().isEmpty())) {
          return;
        }
        assertTrue(System.nanoTime() < deadline, "group " + group + " did not split its partitions: " + description);
        Thread.sleep(50);
      }
    }
  }

  /** Waits until the table's current snapshot counts {@code rows} rows. */
  private void awaitCommittedRows(TableIdentifier name, long rows) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    long committed = -1;
    while (committed != rows) {
      assertTrue(System.nanoTime() < deadline, name + " holds " + committed + " rows, expected " + rows);
      Thread.sleep(100);
      if (catalog.tableExists(name)) {
        var snapshot = catalog.loadTable(name).currentSnapshot();
        committed = snapshot == null
            ? 0
            : Long.parseLong(snapshot.summary().get(org.apache.iceberg.SnapshotSummary.TOTAL_RECORDS_PROP));
      }
    }
  }

  @Test
  void aBrokerRestartInTheMiddleLosesNothing() throws Exception {
    List<NexmarkEvent> events = SinkFixture.events(6, 60_000);
    kafka.createTopic("restart", 2);
    SinkFixture.produce(kafka.bootstrapServers(), "restart", 2, SinkFixture.json(events.subList(0, 30_000)));
    SinkConfig config =
        sink("restart", "restart", "restart").commitEvery(Duration.ofMillis(500), 5_000, Long.MAX_VALUE)
            .stopAtEnd(false).build();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      Future<?> running = thread.submit(sink::run);
      waitFor(() -> sink.metrics().getCommits() > 0, running);
      kafka.restart();
      SinkFixture.produce(kafka.bootstrapServers(), "restart", 2, SinkFixture.json(events.subList(30_000, 60_000)));
      Table table = catalog.loadTable(TableIdentifier.of("nexmark", "restart"));
      waitFor(() -> {
        table.refresh();
        Map<TopicPartition, Long> stored = SinkFixture.storedOffsets(table, "restart");
        return stored.getOrDefault(new TopicPartition("restart", 0), 0L) == 30_000
            && stored.getOrDefault(new TopicPartition("restart", 1), 0L) == 30_000;
      }, running);
      sink.stop();
      running.get();
    } finally {
      thread.shutdownNow();
    }
    assertEquals(SinkFixture.expected(events),
        TableFingerprint.of(catalog.loadTable(TableIdentifier.of("nexmark", "restart"))));
  }

  private static void waitFor(java.util.function.BooleanSupplier condition, Future<?> running) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!condition.getAsBoolean()) {
      if (running.isDone()) {
        running.get(); // surfaces the sink's failure
        throw new AssertionError("the sink stopped early");
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out");
      }
      Thread.sleep(100);
    }
  }

  @Test
  void upsertsLeaveTheLatestRowPerKeyAcrossCommits() throws Exception {
    kafka.createTopic("keyed", 2);
    List<byte[]> messages = new ArrayList<>();
    Map<Long, Long> latest = new HashMap<>();
    java.util.Random random = new java.util.Random(8);
    List<Integer> partitions = new ArrayList<>();
    for (long seq = 0; seq < 3000; seq++) {
      long id = random.nextInt(500);
      messages.add(keyed(id, seq, "k"));
      partitions.add((int) (id % 2)); // one key, one partition: per-key order is kept
      latest.put(id, seq);
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), "keyed", partitions, messages);
    SinkConfig config =
        SinkConfig.builder(catalog, kafka.bootstrapServers(), "upsert")
            .route("keyed", TableIdentifier.of("nexmark", "keyed"))
            .createTables(KEYED, org.apache.iceberg.PartitionSpec.builderFor(KEYED).bucket("id", 4).build(), V2)
            .commitEvery(Duration.ofMinutes(1), 700, Long.MAX_VALUE)
            .batches(250, 1 << 20, 8 << 20)
            .upsert(true)
            .stopAtEnd(true)
            .build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
      assertTrue(sink.metrics().getCommits() >= 4, "several commits: " + sink.metrics().getCommits());
    }
    assertEquals(latest, seqById(catalog.loadTable(TableIdentifier.of("nexmark", "keyed"))));
  }

  /**
   * In upsert mode a tombstone (a null value) deletes the row of its key (a JSON object of the
   * identifier fields), in order with the key's other changes, across batches and commits; one
   * without a key is a bad record, dead-lettered as the tombstone it was. Before, every tombstone
   * was a bad record ("empty message").
   */
  @Test
  void tombstonesDeleteTheirKeysRowInUpsertMode() throws Exception {
    kafka.createTopic("compacted", 2);
    kafka.createTopic("compacted-dead", 1);
    List<byte[]> keys = new ArrayList<>();
    List<byte[]> messages = new ArrayList<>();
    List<Integer> partitions = new ArrayList<>();
    Map<Long, Long> latest = new HashMap<>();
    java.util.Random random = new java.util.Random(9);
    for (long seq = 0; seq < 3000; seq++) {
      long id = random.nextInt(300);
      boolean tombstone = random.nextInt(4) == 0;
      keys.add(("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8));
      messages.add(tombstone ? null : keyed(id, seq, "k"));
      partitions.add((int) (id % 2)); // one key, one partition: per-key order is kept
      if (tombstone) {
        latest.remove(id);
      } else {
        latest.put(id, seq);
      }
    }
    keys.add(null); // a tombstone without a key: nothing says what to delete
    messages.add(null);
    partitions.add(0);
    RoundRobinProducer.sendTo(kafka.bootstrapServers(), "compacted", partitions, keys, messages);
    SinkConfig config =
        SinkConfig.builder(catalog, kafka.bootstrapServers(), "tombstones")
            .route("compacted", TableIdentifier.of("nexmark", "compacted"))
            .createTables(KEYED, org.apache.iceberg.PartitionSpec.builderFor(KEYED).bucket("id", 4).build(), V2)
            .commitEvery(Duration.ofMinutes(1), 700, Long.MAX_VALUE)
            .batches(250, 1 << 20, 8 << 20)
            .upsert(true)
            .badRecords(BadRecordPolicy.DEAD_LETTER, "compacted-dead")
            .stopAtEnd(true)
            .build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
      assertTrue(sink.metrics().getCommits() >= 4, "several commits: " + sink.metrics().getCommits());
      assertEquals(1, sink.metrics().getDeadLettered(), "the tombstone without a key");
    }
    ConsumerRecord<byte[], byte[]> dead = SinkFixture.readAll(kafka.bootstrapServers(), "compacted-dead", 1).getFirst();
    assertEquals(null, dead.value(), "a tombstone stays a tombstone");
    long lastOfPartition0 = partitions.stream().filter(p -> p == 0).count() - 1;
    assertEquals(Long.toString(lastOfPartition0), header(dead, DeadLetters.SOURCE_OFFSET));
    assertEquals("a tombstone (null value) without a key: nothing says which row to delete", header(dead, DeadLetters.ERROR));
    assertTrue(latest.size() < 300, "some keys end deleted: " + latest.size());
    assertEquals(latest, seqById(catalog.loadTable(TableIdentifier.of("nexmark", "compacted"))));
  }

  /** In append mode a tombstone has nothing to append: it is skipped and counted, and the rest lands. */
  @Test
  void tombstonesAreSkippedAndCountedInAppendMode() throws Exception {
    kafka.createTopic("appended", 1);
    List<byte[]> messages = new ArrayList<>();
    Map<Long, Long> expected = new HashMap<>();
    for (long i = 0; i < 100; i++) {
      messages.add(i % 10 == 3 ? null : keyed(i, i, "k"));
      if (i % 10 != 3) {
        expected.put(i, i);
      }
    }
    SinkFixture.produce(kafka.bootstrapServers(), "appended", 1, messages);
    SinkConfig config =
        SinkConfig.builder(catalog, kafka.bootstrapServers(), "appends")
            .route("appended", TableIdentifier.of("nexmark", "appended"))
            .createTables(KEYED, org.apache.iceberg.PartitionSpec.unpartitioned(), V2)
            .stopAtEnd(true)
            .build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
      assertEquals(10, sink.metrics().getTombstonesSkipped());
      assertEquals(0, sink.metrics().getBadRecords());
    }
    assertEquals(expected, seqById(catalog.loadTable(TableIdentifier.of("nexmark", "appended"))));
  }

  @Test
  void aRouteFieldSendsEachRecordToItsTable() throws Exception {
    kafka.createTopic("mixed", 2);
    List<byte[]> messages = new ArrayList<>();
    List<Integer> partitions = new ArrayList<>();
    Map<Long, Long> expectedA = new HashMap<>();
    Map<Long, Long> expectedB = new HashMap<>();
    for (long i = 0; i < 2000; i++) {
      String kind = i % 3 == 0 ? "alpha" : i % 3 == 1 ? "beta-" + i : "other";
      messages.add(keyed(i, i, kind));
      partitions.add((int) (i % 2));
      if (kind.equals("alpha")) {
        expectedA.put(i, i);
      } else if (kind.startsWith("beta")) {
        expectedB.put(i, i);
      }
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), "mixed", partitions, messages);
    SinkConfig config =
        SinkConfig.builder(catalog, kafka.bootstrapServers(), "routes")
            .topics(List.of("mixed"))
            .routeField("kind")
            .routeValue("alpha", TableIdentifier.of("nexmark", "alpha"))
            .routeValue("beta-\\d+", TableIdentifier.of("nexmark", "beta"))
            .createTables(KEYED, org.apache.iceberg.PartitionSpec.unpartitioned(), V2)
            .badRecords(BadRecordPolicy.SKIP, null)
            .commitEvery(Duration.ofMinutes(1), 500, Long.MAX_VALUE)
            .stopAtEnd(true)
            .build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
      assertEquals(666, sink.metrics().getBadRecords(), "'other' matches no route");
    }
    assertEquals(expectedA, seqById(catalog.loadTable(TableIdentifier.of("nexmark", "alpha"))));
    assertEquals(expectedB, seqById(catalog.loadTable(TableIdentifier.of("nexmark", "beta"))));
  }

  @Test
  void aRecordNoRouteMatchesIsDeadLetteredWithItsOriginalBytes() throws Exception {
    kafka.createTopic("unrouted", 1);
    kafka.createTopic("unrouted-dead", 1);
    List<byte[]> messages = new ArrayList<>();
    Map<Long, Long> expected = new HashMap<>();
    for (long i = 0; i < 30; i++) {
      boolean routed = i % 3 != 2;
      messages.add(keyed(i, i * 10, routed ? "alpha" : "other-" + i));
      if (routed) {
        expected.put(i, i * 10);
      }
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), "unrouted", java.util.Collections.nCopies(messages.size(), 0), messages);
    SinkConfig config =
        SinkConfig.builder(catalog, kafka.bootstrapServers(), "unrouted")
            .topics(List.of("unrouted"))
            .routeField("kind")
            .routeValue("alpha", TableIdentifier.of("nexmark", "unrouted_alpha"))
            .createTables(KEYED, org.apache.iceberg.PartitionSpec.unpartitioned(), V2)
            .badRecords(BadRecordPolicy.DEAD_LETTER, "unrouted-dead")
            // The sink's own deserializers must win over any the user names.
            .consumerProperty(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                org.apache.kafka.common.serialization.StringDeserializer.class.getName())
            .stopAtEnd(true)
            .build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
      assertEquals(10, sink.metrics().getDeadLettered());
    }
    assertEquals(expected, seqById(catalog.loadTable(TableIdentifier.of("nexmark", "unrouted_alpha"))));

    List<ConsumerRecord<byte[], byte[]>> dead = SinkFixture.readAll(kafka.bootstrapServers(), "unrouted-dead", 10);
    assertEquals(10, dead.size());
    for (int k = 0; k < 10; k++) {
      ConsumerRecord<byte[], byte[]> r = dead.get(k);
      int offset = 3 * k + 2;
      assertEquals(new String(messages.get(offset), StandardCharsets.UTF_8),
          new String(r.value(), StandardCharsets.UTF_8), "original bytes of offset " + offset);
      assertEquals(Integer.toString(offset), header(r, DeadLetters.SOURCE_OFFSET));
      String error = header(r, DeadLetters.ERROR);
      assertEquals("no route for field 'kind' value 'other-" + offset + "'", error);
    }
  }
}
