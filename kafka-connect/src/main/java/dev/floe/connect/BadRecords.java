package dev.floe.connect;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records that could not be written, the Connect way: under {@code errors.tolerance=all} each goes
 * to the task's {@link ErrantRecordReporter}, which writes it to {@code
 * errors.deadletterqueue.topic.name} as it arrived (original key, value and headers, plus
 * Connect's {@code __connect.errors.*} headers when {@code
 * errors.deadletterqueue.context.headers.enable}) and logs it under {@code errors.log.enable}.
 * Reports are asynchronous; {@link #awaitReported} waits for them before a commit moves the
 * offsets past them. Under {@code none} nothing is tolerated: the task fails instead (the writers
 * decode with {@code FAIL}).
 */
final class BadRecords {
  private static final Logger LOG = LoggerFactory.getLogger(BadRecords.class);

  private final boolean tolerated;
  private final ErrantRecordReporter reporter;
  private final TaskMetrics metrics;
  private final ConcurrentLinkedQueue<Future<Void>> pending = new ConcurrentLinkedQueue<>();

  BadRecords(boolean tolerated, ErrantRecordReporter reporter, TaskMetrics metrics) {
    this.tolerated = tolerated;
    this.reporter = reporter;
    this.metrics = metrics;
  }

  boolean tolerated() {
    return tolerated;
  }

  /** Reports one bad record (any thread). */
  void report(SinkRecord record, String reason) {
    metrics.badRecord();
    String where = "topic " + record.originalTopic() + ", partition " + record.originalKafkaPartition() + ", offset "
        + record.originalKafkaOffset();
    if (reporter == null) {
      LOG.warn("bad record at {} skipped (this worker has no errant record reporter): {}", where, reason);
      return;
    }
    pending.add(reporter.report(record, new DataException("floe: bad record at " + where + ": " + reason)));
  }

  /** Waits until every bad record reported so far is in the dead-letter queue. */
  void awaitReported() {
    Future<Void> next;
    while ((next = pending.poll()) != null) {
      try {
        next.get();
      } catch (ExecutionException e) {
        throw new ConnectException("a bad record could not be sent to the dead-letter queue", e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ConnectException("interrupted while sending bad records to the dead-letter queue", e);
      }
    }
  }
}
