package dev.floe.connect;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.utils.Sanitizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Counters of one task, registered over JMX while the task runs ({@link TaskMetricsMBean}). */
final class TaskMetrics implements TaskMetricsMBean, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TaskMetrics.class);

  private final AtomicLong recordsPut = new AtomicLong();
  private final AtomicLong rowsWritten = new AtomicLong();
  private final AtomicLong badRecords = new AtomicLong();
  private final AtomicLong unknownFieldValues = new AtomicLong();
  private final AtomicLong schemaEvolutions = new AtomicLong();
  private final AtomicLong tombstonesSkipped = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private final AtomicLong committedFiles = new AtomicLong();
  private final AtomicLong committedBytes = new AtomicLong();
  private final AtomicLong fencedCycles = new AtomicLong();
  private final AtomicLong outageRetries = new AtomicLong();
  private volatile long lastCommitMillis;
  private volatile long uncommittedRecords;
  /** Records of the cycle being committed (0 once its commit has ended). */
  private volatile long inFlightRecords;
  private volatile int openTables;
  private volatile long lastCommitNanos = System.nanoTime();
  private final ObjectName name;
  /** The metrics registered under each name in this JVM (a worker runs many tasks). */
  private static final Map<ObjectName, TaskMetrics> OWNERS = new HashMap<>();

  /**
   * Registers under {@code dev.floe:type=FloeIcebergSinkTask,connector=<name>,task=<n>}, the name
   * quoted only where JMX needs it, as Connect names its own task metrics. A task of the same name
   * still registered (an earlier one Connect gave up waiting for) gives way.
   */
  TaskMetrics(String connector, int task) {
    ObjectName registered = null;
    try {
      registered = new ObjectName("dev.floe:type=FloeIcebergSinkTask,connector=" + Sanitizer.jmxSanitize(connector)
          + ",task=" + task);
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      synchronized (OWNERS) {
        if (server.isRegistered(registered)) {
          server.unregisterMBean(registered);
        }
        server.registerMBean(this, registered);
        OWNERS.put(registered, this);
      }
    } catch (JMException e) {
      LOG.warn("task metrics are not on JMX: {}", e.toString());
      registered = null;
    }
    this.name = registered;
  }

  void recordsPut(long n) {
    recordsPut.addAndGet(n);
  }

  void rowsWritten(long n) {
    rowsWritten.addAndGet(n);
  }

  void badRecord() {
    badRecords.incrementAndGet();
  }

  void unknownFieldValues(long values) {
    unknownFieldValues.addAndGet(values);
  }

  void schemaEvolved(long nanos) {
    schemaEvolutions.incrementAndGet();
  }

  void tombstoneSkipped() {
    tombstonesSkipped.incrementAndGet();
  }

  void uncommitted(long records) {
    uncommittedRecords = records;
  }

  /** Records of the cycle handed to the commit thread; 0 when its commit ends. */
  void inFlight(long records) {
    inFlightRecords = records;
  }

  void committed(long files, long bytes, long millis) {
    commits.incrementAndGet();
    committedFiles.addAndGet(files);
    committedBytes.addAndGet(bytes);
    lastCommitMillis = millis;
    lastCommitNanos = System.nanoTime();
  }

  @Override
  public long getRecordsPut() {
    return recordsPut.get();
  }

  @Override
  public long getRowsWritten() {
    return rowsWritten.get();
  }

  @Override
  public long getBadRecords() {
    return badRecords.get();
  }

  @Override
  public long getUnknownFieldValues() {
    return unknownFieldValues.get();
  }

  @Override
  public long getSchemaEvolutions() {
    return schemaEvolutions.get();
  }

  @Override
  public long getTombstonesSkipped() {
    return tombstonesSkipped.get();
  }

  @Override
  public long getCommits() {
    return commits.get();
  }

  @Override
  public long getCommittedFiles() {
    return committedFiles.get();
  }

  @Override
  public long getCommittedBytes() {
    return committedBytes.get();
  }

  void openTables(int tables) {
    openTables = tables;
  }

  @Override
  public int getOpenTables() {
    return openTables;
  }

  void fenced() {
    fencedCycles.incrementAndGet();
  }

  @Override
  public long getFencedCycles() {
    return fencedCycles.get();
  }

  void outageRetried() {
    outageRetries.incrementAndGet();
  }

  @Override
  public long getOutageRetries() {
    return outageRetries.get();
  }

  @Override
  public long getLastCommitMillis() {
    return lastCommitMillis;
  }

  @Override
  public long getUncommittedRecords() {
    return uncommittedRecords + inFlightRecords;
  }

  @Override
  public long getMillisSinceLastCommit() {
    return (System.nanoTime() - lastCommitNanos) / 1_000_000;
  }

  /** Unregisters these metrics, unless a later task of the same name registered its own since. */
  @Override
  public void close() {
    if (name == null) {
      return;
    }
    synchronized (OWNERS) {
      if (!OWNERS.remove(name, this)) {
        return; // a later task's metrics hold the name now
      }
      try {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
      } catch (JMException ignored) {
        // already gone
      }
    }
  }
}
