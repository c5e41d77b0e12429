package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static dev.floe.kafka.sink.SinkFixture.seqById;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.arrow.BadRecordPolicy;
import dev.floe.iceberg.ForwardingTableOperations;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The sink where exactly-once is hard: commits whose outcome is unknown, tables of one cycle that
 * land apart, topics recreated, aborted transactions, offsets expired from the table's history,
 * zombies that commit first, and records that cannot be routed. Real broker, real catalog; every
 * table is read back with Iceberg's generic reader.
 */
class SinkExactlyOnceTest extends BrokerAndCatalog {
  SinkExactlyOnceTest() {
    super("t");
  }

  private SinkConfig.Builder sink(Catalog through, String group) {
    return SinkConfig.builder(through, kafka.bootstrapServers(), group)
        .createTables(KEYED, PartitionSpec.unpartitioned(), V2)
        .stopAtEnd(true);
  }

  /** {@code count} keyed records with ids from {@code firstId}, kind "k", on partition 0. */
  private static void produce(String topic, long firstId, int count) {
    List<byte[]> messages = new ArrayList<>();
    for (long id = firstId; id < firstId + count; id++) {
      messages.add(keyed(id, id, "k"));
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), topic, Collections.nCopies(count, 0), messages);
  }

  private static Map<Long, Long> ids(long firstId, int count) {
    Map<Long, Long> out = new HashMap<>();
    for (long id = firstId; id < firstId + count; id++) {
      out.put(id, id);
    }
    return out;
  }

  private Table table(String name) {
    return catalog.loadTable(TableIdentifier.of("t", name));
  }

  /** Every file of the table's data directory is one its current snapshot references. */
  private static void assertNoOrphanFiles(Table table) throws IOException {
    Set<String> referenced = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> referenced.add(Path.of(t.file().location().replace("file:", "")).toString()));
    }
    Path data = Path.of(table.location().replace("file:", ""), "data");
    if (!Files.exists(data)) {
      return;
    }
    try (Stream<Path> files = Files.walk(data)) {
      List<String> orphans = files.filter(Files::isRegularFile).filter(f -> f.toString().endsWith(".parquet"))
          .map(Path::toString).filter(f -> !referenced.contains(f)).toList();
      assertEquals(List.of(), orphans, "data files no snapshot references");
    }
  }

  // 1. A commit that landed but answered "unknown", and a catalog that still shows the old table.

  /** Commits through real operations; the first one lands, then answers unknown, then refreshes stale once. */
  private static final class LandsThenAnswersUnknown extends ForwardingTableOperations {
    final AtomicInteger unknowns = new AtomicInteger();
    private TableMetadata stale;

    LandsThenAnswersUnknown(TableOperations delegate) {
      super(delegate);
    }

    @Override
    public synchronized void commit(TableMetadata base, TableMetadata metadata) {
      super.commit(base, metadata);
      if (unknowns.getAndIncrement() == 0) {
        stale = base;
        throw new CommitStateUnknownException(new RuntimeException("504 gateway timeout, still committing"));
      }
    }

    @Override
    public synchronized TableMetadata refresh() {
      TableMetadata old = stale;
      stale = null;
      return old != null ? old : super.refresh();
    }
  }

  @Test
  void aCommitThatLandedWhileItsOutcomeWasUnknownIsNeitherFencedNorDeleted() throws Exception {
    kafka.createTopic("unknown", 1);
    produce("unknown", 0, 1000);
    List<LandsThenAnswersUnknown> wrapped = new ArrayList<>();
    Catalog flaky = new WrappingCatalog(catalog, (id, ops) -> {
      LandsThenAnswersUnknown w = new LandsThenAnswersUnknown(ops);
      wrapped.add(w);
      return w;
    });
    try (KafkaIcebergSink sink = new KafkaIcebergSink(
        sink(flaky, "unknown").route("unknown", TableIdentifier.of("t", "unknown"))
            .commitEvery(Duration.ofMinutes(1), 400, Long.MAX_VALUE).build())) {
      sink.run();
    }
    assertTrue(wrapped.stream().anyMatch(w -> w.unknowns.get() > 1), "a commit's outcome was unknown");
    Table table = table("unknown");
    assertEquals(ids(0, 1000), seqById(table), "every record once, every referenced file readable");
    assertEquals(1000L, SinkFixture.storedOffsets(table, "unknown").get(new TopicPartition("unknown", 0)));
  }

  // 2. A route-field cycle whose first table lands and whose second never does.

  @Test
  void aTableWhoseCommitsFailedGetsItsRecordsOnTheNextRunThoughAnotherTableMovedOn() throws Exception {
    kafka.createTopic("routed", 2);
    List<byte[]> messages = new ArrayList<>();
    List<Integer> partitions = new ArrayList<>();
    Map<Long, Long> alpha = new HashMap<>();
    Map<Long, Long> beta = new HashMap<>();
    for (long i = 0; i < 1200; i++) {
      boolean isAlpha = i % 3 != 0;
      messages.add(keyed(i, i, isAlpha ? "alpha" : "beta"));
      partitions.add((int) (i % 2));
      (isAlpha ? alpha : beta).put(i, i);
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), "routed", partitions, messages);
    Map<String, String> noIcebergRetries = new HashMap<>(V2);
    noIcebergRetries.put(TableProperties.COMMIT_NUM_RETRIES, "0");
    java.util.function.Function<Catalog, SinkConfig> config = through -> sink(through, "routed")
        .topics(List.of("routed"))
        .routeField("kind")
        .routeValue("alpha", TableIdentifier.of("t", "alpha"))
        .routeValue("beta", TableIdentifier.of("t", "beta"))
        .createTables(KEYED, PartitionSpec.unpartitioned(), noIcebergRetries)
        .build();

    Catalog betaRefused = new WrappingCatalog(catalog,
        (id, ops) -> id.name().equals("beta") ? new RefusesCommits(ops) : ops);
    try (KafkaIcebergSink first = new KafkaIcebergSink(config.apply(betaRefused))) {
      SinkException e = assertThrows(SinkException.class, first::run);
      assertTrue(e.getMessage().contains("could not commit to"), e.getMessage());
    }
    assertEquals(alpha, seqById(table("alpha")), "alpha landed in the first run");
    assertEquals(null, table("beta").currentSnapshot(), "beta did not");

    try (KafkaIcebergSink second = new KafkaIcebergSink(config.apply(catalog))) {
      second.run();
    }
    assertEquals(alpha, seqById(table("alpha")), "alpha: nothing twice");
    assertEquals(beta, seqById(table("beta")), "beta: every record, once");
    assertNoOrphanFiles(table("beta")); // the files of its refused commits were deleted
  }

  // 3. A topic deleted and created again under the same name.

  @Test
  void aRecreatedTopicIsReadFromItsBeginning() throws Exception {
    kafka.createTopic("reborn", 1);
    produce("reborn", 0, 100);
    SinkConfig config = sink(catalog, "reborn").route("reborn", TableIdentifier.of("t", "reborn")).build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
    }
    kafka.deleteTopic("reborn");
    kafka.createTopic("reborn", 1);
    produce("reborn", 1000, 150); // offsets 0..149 again, other records
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
    }
    Map<Long, Long> expected = ids(0, 100);
    expected.putAll(ids(1000, 150));
    Table table = table("reborn");
    assertEquals(expected, seqById(table));
    String json = table.currentSnapshot().summary().get(SnapshotOffsets.key("reborn"));
    SnapshotOffsets.Position stored = SnapshotOffsets.parse(json).get(new TopicPartition("reborn", 0));
    assertEquals(new SnapshotOffsets.Position(150, topicId("reborn"), stored.leaderEpoch()), stored,
        "offsets stored with the new topic's id");
  }

  private static String topicId(String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
      return d.topicId().toString();
    }
  }

  // 4. Records of an aborted transaction.

  @Test
  void recordsOfAbortedTransactionsNeverLand() throws Exception {
    kafka.createTopic("txn", 1);
    Map<String, Object> producerConfig = new HashMap<>();
    producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    producerConfig.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "txn-producer");
    producerConfig.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    producerConfig.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig)) {
      producer.initTransactions();
      producer.beginTransaction();
      for (long id = 0; id < 50; id++) {
        producer.send(new ProducerRecord<>("txn", 0, null, keyed(id, id, "aborted")));
      }
      producer.flush();
      producer.abortTransaction();
      producer.beginTransaction();
      for (long id = 100; id < 150; id++) {
        producer.send(new ProducerRecord<>("txn", 0, null, keyed(id, id, "committed")));
      }
      producer.commitTransaction();
    }
    try (KafkaIcebergSink sink =
        new KafkaIcebergSink(sink(catalog, "txn").route("txn", TableIdentifier.of("t", "txn")).build())) {
      sink.run();
    }
    assertEquals(ids(100, 50), seqById(table("txn")), "only the committed transaction's records");
  }

  // 5. Compaction and snapshot expiry remove every snapshot the sink wrote; the group offset is rewound.

  @Test
  void offsetsOutliveCompactionAndSnapshotExpiry() throws Exception {
    kafka.createTopic("expiring", 1);
    produce("expiring", 0, 500);
    SinkConfig config = sink(catalog, "expiring").route("expiring", TableIdentifier.of("t", "expiring"))
        .commitEvery(Duration.ofMinutes(1), 200, Long.MAX_VALUE).build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
    }
    Table table = table("expiring");
    compact(table);
    table.expireSnapshots().expireOlderThan(System.currentTimeMillis() + 1).retainLast(1).commit();
    table.refresh();
    assertEquals(1, count(table.snapshots()), "only the compaction's snapshot is left");
    assertEquals(null, table.currentSnapshot().summary().get(SnapshotOffsets.key("expiring")));
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      admin.alterConsumerGroupOffsets("expiring", Map.of(new TopicPartition("expiring", 0), new OffsetAndMetadata(0)))
          .all().get();
    }
    produce("expiring", 500, 300);
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
    }
    assertEquals(ids(0, 800), seqById(table("expiring")), "nothing twice, nothing lost");
  }

  /**
   * The sink expires the table's snapshots as it commits ({@code expire.snapshots.every}), by the
   * table's retention properties: the history stays at the two snapshots the table keeps, the
   * manifest lists of the others are deleted, and a second run resumes exactly from the offsets
   * that outlive them.
   */
  @Test
  void expiringSnapshotsAsItCommitsKeepsTheHistoryShortAndTheTableExact() throws Exception {
    kafka.createTopic("pruned", 1);
    produce("pruned", 0, 3000);
    Map<String, String> retention = Map.of(
        TableProperties.FORMAT_VERSION, "2",
        TableProperties.MAX_SNAPSHOT_AGE_MS, "1",
        TableProperties.MIN_SNAPSHOTS_TO_KEEP, "2");
    SinkConfig config = sink(catalog, "pruned").route("pruned", TableIdentifier.of("t", "pruned"))
        .createTables(KEYED, PartitionSpec.unpartitioned(), retention)
        .commitEvery(Duration.ofMinutes(1), 300, Long.MAX_VALUE)
        .expireSnapshotsEvery(Duration.ofMillis(1))
        .build();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
    }
    Table table = table("pruned");
    assertEquals(2, count(table.snapshots()), "ten commits, two snapshots kept");
    try (Stream<Path> files = Files.list(Path.of(table.location().replace("file:", ""), "metadata"))) {
      assertEquals(2, files.filter(f -> f.getFileName().toString().startsWith("snap-")).count(),
          "the expired snapshots' manifest lists are deleted");
    }
    assertEquals(ids(0, 3000), seqById(table));
    assertNoOrphanFiles(table);

    produce("pruned", 3000, 600);
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      sink.run();
    }
    assertEquals(ids(0, 3600), seqById(table("pruned")), "nothing twice, nothing lost");
  }

  private static long count(Iterable<?> items) {
    long n = 0;
    for (Object ignored : items) {
      n++;
    }
    return n;
  }

  /** Rewrites all of the table's data files into one, as a compaction job would. */
  private static void compact(Table table) throws IOException {
    Set<DataFile> old = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> old.add(t.file()));
    }
    OutputFileFactory files = OutputFileFactory.builderFor(table, 99, 1).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer =
        new GenericAppenderFactory(table.schema(), table.spec()).newDataWriter(files.newOutputFile(), FileFormat.PARQUET, null);
    try (writer; CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(writer::write);
    }
    table.newRewrite().rewriteFiles(old, Set.of(writer.toDataFile())).commit();
  }

  // 6. A route field whose value has an escape JSON does not define.

  @Test
  void aRouteValueWithABadEscapeIsABadRecordUnderEachPolicy() throws Exception {
    kafka.createTopic("escapes", 1);
    List<byte[]> messages = new ArrayList<>();
    for (long id = 0; id < 20; id++) {
      messages.add(id == 7
          ? "{\"id\":7,\"seq\":7,\"kind\":\"\\uZZZZ\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8)
          : keyed(id, id, "alpha"));
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), "escapes", Collections.nCopies(20, 0), messages);
    Map<Long, Long> good = ids(0, 20);
    good.remove(7L);
    java.util.function.BiFunction<String, BadRecordPolicy, SinkConfig> config = (group, mode) -> sink(catalog, group)
        .topics(List.of("escapes"))
        .routeField("kind")
        .routeValue("alpha", TableIdentifier.of("t", group))
        .badRecords(mode, null)
        .build();

    try (KafkaIcebergSink sink = new KafkaIcebergSink(config.apply("escapes_fail", BadRecordPolicy.FAIL))) {
      SinkException e = assertThrows(SinkException.class, sink::run);
      assertTrue(e.getMessage().contains("partition 0, offset 7"), e.getMessage());
      assertTrue(e.getMessage().contains("invalid escape '\\uZZZZ'"), e.getMessage());
    }
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config.apply("escapes_skip", BadRecordPolicy.SKIP))) {
      sink.run();
      assertEquals(1, sink.metrics().getBadRecords());
    }
    assertEquals(good, seqById(table("escapes_skip")));
  }

  // 8. A zombie -- its commit held past the poll interval -- commits first; the new owner goes on.
  // The owner's fence arrives while a batch of records is inside its poll: before that was handled,
  // the batch joined the cycle after the seek back and was read again, two rows for id 1000 on.

  /** Holds a table's first commit until {@code release}; counts down {@code landed} after it. */
  private static final class HeldFirstCommit extends ForwardingTableOperations {
    private final CountDownLatch holding;
    private final CountDownLatch release;
    private final CountDownLatch landed;
    private final AtomicInteger commits = new AtomicInteger();

    HeldFirstCommit(TableOperations delegate, CountDownLatch holding, CountDownLatch release, CountDownLatch landed) {
      super(delegate);
      this.holding = holding;
      this.release = release;
      this.landed = landed;
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      if (commits.getAndIncrement() == 0) {
        holding.countDown();
        await(release);
      }
      super.commit(base, metadata);
      landed.countDown();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(120, TimeUnit.SECONDS), "timed out waiting for a latch");
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void whenAZombieCommitsFirstTheNewOwnerResumesFromTheTableInsteadOfStopping() throws Exception {
    kafka.createTopic("zombie", 1);
    CountDownLatch zombieHolding = new CountDownLatch(1);
    CountDownLatch releaseZombie = new CountDownLatch(1);
    CountDownLatch zombieLanded = new CountDownLatch(1);
    CountDownLatch ownerHolding = new CountDownLatch(1);
    CountDownLatch unused = new CountDownLatch(1);
    Catalog zombieCatalog = new WrappingCatalog(catalog,
        (id, ops) -> new HeldFirstCommit(ops, zombieHolding, releaseZombie, zombieLanded));
    // The new owner's first commit waits until the zombie's has landed.
    Catalog ownerCatalog = new WrappingCatalog(catalog,
        (id, ops) -> new HeldFirstCommit(ops, ownerHolding, zombieLanded, unused));
    java.util.function.Function<Catalog, SinkConfig.Builder> config = through -> sink(through, "zombie")
        .route("zombie", TableIdentifier.of("t", "zombie"))
        .commitEvery(Duration.ofSeconds(1), 1000, Long.MAX_VALUE)
        .consumerProperty(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 4000)
        .stopAtEnd(false);
    // The owner's first records after the zombie's commit are held inside its poll while its own
    // commit is fenced: records polled before the fence must be read again, not kept.
    HoldOneBatch.after = zombieLanded;
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (KafkaIcebergSink zombie = new KafkaIcebergSink(config.apply(zombieCatalog).build());
        KafkaIcebergSink owner = new KafkaIcebergSink(config.apply(ownerCatalog)
            .commitEvery(Duration.ofSeconds(30), 1000, Long.MAX_VALUE) // polls on while its first commit is held
            .consumerProperty(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, HoldOneBatch.class.getName())
            .build())) {
      Future<?> zombieRun = threads.submit(zombie::run);
      produce("zombie", 0, 1000);
      await(zombieHolding); // its first commit hangs; its consumer soon stops polling
      Future<?> ownerRun = threads.submit(owner::run);
      await(ownerHolding); // the owner took the partition over and read it from the table's offsets
      releaseZombie.countDown(); // the zombie's commit lands first; the owner's is then fenced
      produce("zombie", 1000, 2000);
      waitFor(() -> {
        Map<TopicPartition, Long> stored = SinkFixture.storedOffsets(table("zombie"), "zombie");
        return stored.getOrDefault(new TopicPartition("zombie", 0), 0L) == 3000;
      }, zombieRun, ownerRun);
      zombie.stop();
      owner.stop();
      ownerRun.get(60, TimeUnit.SECONDS); // the owner survived the fence
      zombieRun.get(60, TimeUnit.SECONDS);
      assertTrue(owner.metrics().getFencedCycles() + zombie.metrics().getFencedCycles() >= 1,
          "a cycle was fenced and dropped");
    } finally {
      threads.shutdownNow();
    }
    assertEquals(ids(0, 3000), seqById(table("zombie")));
  }

  /**
   * Holds one batch of records inside a consumer's poll for a second, the first batch after {@link
   * #after} opens.
   */
  public static final class HoldOneBatch implements ConsumerInterceptor<Object, Object> {
    static volatile CountDownLatch after;
    private static final AtomicBoolean HELD = new AtomicBoolean();

    @Override
    public ConsumerRecords<Object, Object> onConsume(ConsumerRecords<Object, Object> records) {
      CountDownLatch gate = after;
      if (!records.isEmpty() && gate != null && gate.getCount() == 0 && HELD.compareAndSet(false, true)) {
        try {
          Thread.sleep(1_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return records;
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
  }

  // 9. Stop honored while the consumer waits for room in the in-flight budget.

  @Test
  void stopReturnsWhileTheConsumerWaitsForWritersThatHang() throws Exception {
    kafka.createTopic("stuck", 1);
    produce("stuck", 0, 20_000);
    CountDownLatch blocked = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Catalog hanging = new WrappingCatalog(catalog, (id, ops) -> new ForwardingTableOperations(ops) {
      @Override
      public org.apache.iceberg.io.FileIO io() {
        return new BlockingFileIO(delegate.io(), blocked, release);
      }
    });
    SinkConfig config = sink(hanging, "stuck").route("stuck", TableIdentifier.of("t", "stuck"))
        .commitEvery(Duration.ofMinutes(1), 5_000, Long.MAX_VALUE)
        .batches(100, 1 << 20, 16 << 10)
        .stopAtEnd(false)
        .build();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(config)) {
      Future<?> running = thread.submit(sink::run);
      await(blocked); // the first cycle's file hangs as it is finished; batches pile up behind it
      long consumed;
      do { // until the consumer stops taking records: it waits for room in the budget
        consumed = sink.metrics().getRecordsConsumed();
        Thread.sleep(500);
      } while (sink.metrics().getRecordsConsumed() != consumed);
      assertTrue(consumed < 20_000, "the consumer is held back: " + consumed);
      sink.stop();
      running.get(15, TimeUnit.SECONDS); // returns although the writers still hang
      release.countDown(); // the sealed cycle may land as the sink closes
    } finally {
      release.countDown();
      thread.shutdownNow();
    }
    try (KafkaIcebergSink sink = new KafkaIcebergSink(
        sink(catalog, "stuck").route("stuck", TableIdentifier.of("t", "stuck")).build())) {
      sink.run();
    }
    assertEquals(ids(0, 20_000), seqById(table("stuck")), "a restart lands the rest, once");
  }

  private static void waitFor(BooleanSupplier condition, Future<?>... running) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!condition.getAsBoolean()) {
      for (Future<?> r : running) {
        if (r.isDone()) {
          r.get(); // surfaces a sink's failure
          throw new AssertionError("a sink stopped early");
        }
      }
      assertTrue(System.nanoTime() < deadline, "timed out");
      Thread.sleep(100);
    }
  }
}
