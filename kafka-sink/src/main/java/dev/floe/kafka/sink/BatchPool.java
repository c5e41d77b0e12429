package dev.floe.kafka.sink;

import dev.floe.arrow.MessageBatch;
import java.util.ArrayDeque;
import java.util.concurrent.Semaphore;

/**
 * Batches that wait to be filled again, shared by all tables of a sink, and counted against the
 * sink's in-flight budget: a spare batch holds permits for its whole capacity, so batches in
 * flight and spare ones together stay within the budget however many tables there are. A batch
 * given back when the budget has no room for it is freed instead; {@link #trim()} frees every
 * spare, for a consumer that waits for room. Thread-safe.
 */
final class BatchPool implements AutoCloseable {
  private final Semaphore budget;
  private final boolean keepOrigins;
  private final ArrayDeque<SinkBatch> spares = new ArrayDeque<>();
  private boolean closed;

  /**
   * @param budget the sink's in-flight budget, one permit per byte
   * @param keepOrigins whether batches keep what dead letters need ({@link SinkBatch#origins})
   */
  BatchPool(Semaphore budget, boolean keepOrigins) {
    this.budget = budget;
    this.keepOrigins = keepOrigins;
  }

  /** A spare batch (its room goes back to the budget), or a new one of this capacity. */
  SinkBatch take(long bytes, int messages) {
    synchronized (this) {
      SinkBatch spare = spares.poll();
      if (spare != null) {
        budget.release(permits(spare));
        return spare;
      }
    }
    return new SinkBatch(new MessageBatch(bytes, messages), keepOrigins);
  }

  /**
   * Takes {@code batch} back, emptied, if the budget has room for its capacity and no one waits
   * for room (the consumer needs it for its next batch more than the pool needs a spare); frees it
   * otherwise.
   */
  void give(SinkBatch batch) {
    batch.clear();
    synchronized (this) {
      if (!closed && !budget.hasQueuedThreads() && budget.tryAcquire(permits(batch))) {
        spares.push(batch);
        return;
      }
    }
    batch.close();
  }

  /** Frees every spare batch, giving its room back to the budget. */
  synchronized void trim() {
    for (SinkBatch spare : spares) {
      budget.release(permits(spare));
      spare.close();
    }
    spares.clear();
  }

  /** Permits a spare holds: its payload capacity, at most the whole budget's worth. */
  private static int permits(SinkBatch batch) {
    return (int) Math.clamp(batch.messages.capacityBytes(), 1, Integer.MAX_VALUE);
  }

  @Override
  public synchronized void close() {
    trim();
    closed = true;
  }
}
