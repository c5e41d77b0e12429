package dev.floe.kafka.sink;

import static dev.floe.kafka.sink.SinkFixture.KEYED;
import static dev.floe.kafka.sink.SinkFixture.V2;
import static dev.floe.kafka.sink.SinkFixture.keyed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Upsert mode on a new, unpartitioned table. Another writer adds a bucket on the key while the
 * sink's first cycle is committing, and the second cycle starts before that commit lands: its
 * writers, made for the new spec, see no data in the old one yet, so its equality deletes went to
 * the new spec alone and missed the first cycle's rows (helper-64: 50 keys twice). The commit now
 * finds that and writes the cycle again, with deletes in both specs.
 */
class SpecChangedWhileACycleLandsTest extends BrokerAndCatalog {
  private static final String TOPIC = "respecced";
  private static final TableIdentifier TABLE = TableIdentifier.of("t", "respecced");
  private static final int PER_CYCLE = 200;
  private static final int KEYS = 50;

  SpecChangedWhileACycleLandsTest() {
    super("t");
  }

  @Test
  void aCycleWhoseDeletesMissDataLandedInTheOldSpecIsWrittenAgain() throws Exception {
    kafka.createTopic(TOPIC, 1);
    catalog.createTable(TABLE, KEYED, PartitionSpec.unpartitioned(), V2);
    Map<Long, Long> latest = new HashMap<>();
    produce(0, latest);
    AtomicBoolean respecced = new AtomicBoolean();
    CountDownLatch specChanged = new CountDownLatch(1);
    AtomicReference<KafkaIcebergSink> running = new AtomicReference<>();
    Catalog hooked = new WrappingCatalog(catalog,
        (id, ops) -> new BeforeFirstSnapshotCommit(ops, respecced, () -> respecAndHold(specChanged, running.get())));
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (KafkaIcebergSink sink = new KafkaIcebergSink(SinkConfig.builder(hooked, kafka.bootstrapServers(), TOPIC)
        .route(TOPIC, TABLE)
        .upsert(true)
        .commitEvery(Duration.ofSeconds(60), PER_CYCLE, Long.MAX_VALUE)
        .build())) {
      running.set(sink);
      Future<?> run = thread.submit(sink::run);
      assertTrue(specChanged.await(60, TimeUnit.SECONDS), "the first cycle's commit began");
      produce(PER_CYCLE, latest); // the second cycle, read while the first one's commit is held
      awaitStored(2L * PER_CYCLE, run);
      sink.stop();
      run.get(60, TimeUnit.SECONDS);
      assertTrue(sink.metrics().getFencedCycles() >= 1, "the second cycle was fenced and written again");
    } finally {
      thread.shutdownNow();
    }
    Table table = catalog.loadTable(TABLE);
    assertEquals(1, table.spec().specId(), "the bucket was added during the run");
    assertEquals(latest, SinkFixture.seqById(table), "each key's latest row, once");
  }

  /**
   * During the sink's first commit: adds the bucket through another handle, then holds the commit
   * until the sink has read the second cycle's records (its writers are made for them), and a
   * little longer.
   */
  private void respecAndHold(CountDownLatch respecced, KafkaIcebergSink sink) {
    catalog.loadTable(TABLE).updateSpec().addField(Expressions.bucket("id", 4)).commit();
    respecced.countDown();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (sink.metrics().getRecordsConsumed() < 2L * PER_CYCLE && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      Thread.sleep(500); // the read records reach their writers, made for the new spec
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One cycle's records: keys 0-49 four times, seqs from {@code first}. */
  private void produce(long first, Map<Long, Long> latest) {
    List<byte[]> messages = new ArrayList<>();
    for (long seq = first; seq < first + PER_CYCLE; seq++) {
      messages.add(keyed(seq % KEYS, seq, "k"));
      latest.put(seq % KEYS, seq);
    }
    SinkFixture.produceTo(kafka.bootstrapServers(), TOPIC, Collections.nCopies(messages.size(), 0), messages);
  }

  private void awaitStored(long offset, Future<?> run) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      Long stored = SinkFixture.storedOffsets(catalog.loadTable(TABLE), TOPIC).get(new TopicPartition(TOPIC, 0));
      if (stored != null && stored >= offset) {
        return;
      }
      if (run.isDone()) {
        run.get();
      }
      assertTrue(System.nanoTime() < deadline, "the table holds offsets up to " + stored + ", not " + offset);
      Thread.sleep(100);
    }
  }
}
