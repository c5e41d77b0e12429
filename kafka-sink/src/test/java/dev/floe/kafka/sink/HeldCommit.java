package dev.floe.kafka.sink;

import dev.floe.iceberg.ForwardingTableOperations;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;

/**
 * Holds one table commit in flight: once {@link #arm armed}, the next commit through {@link
 * #wrap}'s catalog waits until {@link #release}. Lets a test act while the sink's commit is
 * pending, as a slow catalog would leave it.
 */
final class HeldCommit {
  private volatile CountDownLatch holding;
  private volatile CountDownLatch release;

  /** {@code catalog}, whose table commits wait while this is armed. */
  Catalog wrap(Catalog catalog) {
    return new WrappingCatalog(catalog, (id, ops) -> new ForwardingTableOperations(ops) {
      @Override
      public void commit(TableMetadata base, TableMetadata metadata) {
        CountDownLatch held = holding;
        CountDownLatch released = release;
        if (held != null && released != null && released.getCount() > 0) {
          held.countDown();
          try {
            released.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
        }
        super.commit(base, metadata);
      }
    });
  }

  /** The next commit waits for {@link #release}. */
  void arm() {
    holding = new CountDownLatch(1);
    release = new CountDownLatch(1);
  }

  /** Whether a commit is waiting within {@code seconds}. */
  boolean awaitHeld(long seconds) throws InterruptedException {
    return holding.await(seconds, TimeUnit.SECONDS);
  }

  /** Lets the held commit go on, and every later one. */
  void release() {
    release.countDown();
  }
}
