package dev.floe.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.flink.sink.FloeIcebergSink;
import dev.floe.iceberg.Catalogs;
import dev.floe.iceberg.s3.LoopbackS3Server;
import dev.floe.testing.TableFingerprint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The raw path on object storage, as Flink users run it: a table of a JDBC catalog whose warehouse
 * is in an S3-compatible server on loopback (Iceberg's S3FileIO). While the job runs, the store
 * refuses every write for 3 s; the writers' and the committer's failures fail the job's tasks,
 * Flink restarts them from the last checkpoint, and the table ends equal to the topic: nothing of
 * a checkpoint whose files did not reach the store is committed, nothing is committed twice.
 */
class ObjectStorageJobTest extends FlinkJobsOnKafka {
  private static final String CATALOG = "on-s3";
  @TempDir static Path storeDir;
  static LoopbackS3Server s3;
  static Map<String, String> catalogProperties;
  static Catalog onS3;

  @BeforeAll
  static void startStore() throws Exception {
    s3 = LoopbackS3Server.start(storeDir.resolve("store"), "floe-warehouse");
    catalogProperties = new HashMap<>(s3.jdbcCatalogProperties(storeDir.resolve("catalog.db")));
    // The SDK's own retries kept short: the outage is Flink's to restart through, not the client's.
    catalogProperties.put("s3.retry.num-retries", "1");
    catalogProperties.put("s3.retry.min-wait-ms", "100");
    catalogProperties.put("s3.retry.max-wait-ms", "200");
    onS3 = Catalogs.load(CATALOG, catalogProperties);
    ((SupportsNamespaces) onS3).createNamespace(Namespace.of("s3"));
  }

  @AfterAll
  static void stopStore() throws Exception {
    if (onS3 instanceof AutoCloseable c) {
      c.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void aJobOnObjectStorageRestartsThroughAnOutageAndItsTableEqualsTheTopic() throws Exception {
    TableIdentifier id = TableIdentifier.of("s3", "q0_raw");
    Table table = onS3.createTable(id, NEXMARK, BUCKETS, Map.of(TableProperties.FORMAT_VERSION, "2"));
    Throttle.SLOW.set(true);
    InMemoryReporter reporter = InMemoryReporter.createWithRetainedMetrics();
    StreamExecutionEnvironment env = environment(100, reporter.addToConfiguration(new Configuration()));
    FloeIcebergSink.forKafkaPayloads(IcebergTableRef.of(CATALOG, catalogProperties, id))
        .append(throttled(payloads(env, true)));
    JobClient job = env.executeAsync("q0 raw on S3");
    try {
      awaitRows(table, 1, Duration.ofSeconds(60));
      s3.setWritesDown(true);
      Thread.sleep(3_000);
    } finally {
      s3.setWritesDown(false);
      Throttle.SLOW.set(false);
    }
    job.getJobExecutionResult().get(180, TimeUnit.SECONDS);

    assertTrue(s3.refusedRequests() > 0, "the outage refused the job's writes");
    assertTrue(restarts(reporter, job.getJobID()) > 0, "the outage failed the job's tasks, and Flink restarted them");
    table.refresh();
    assertEquals(expected(), TableFingerprint.of(table), "every event once");
  }

  /** The job's {@code numRestarts} gauge, as its last report had it. */
  private static long restarts(InMemoryReporter reporter, JobID job) {
    long restarts = -1;
    for (var group : reporter.getMetricsByGroup().entrySet()) {
      if (job.toString().equals(group.getKey().getAllVariables().get("<job_id>"))
          && group.getValue().get("numRestarts") instanceof Gauge<?> gauge) {
        restarts = Math.max(restarts, ((Number) gauge.getValue()).longValue());
      }
    }
    assertTrue(restarts >= 0, "no numRestarts gauge for the job");
    return restarts;
  }
}
