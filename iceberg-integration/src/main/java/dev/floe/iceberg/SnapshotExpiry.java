package dev.floe.iceberg;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires a table's old snapshots from the writer that keeps adding them, at most once per
 * interval per table: Iceberg rewrites the whole table metadata at each commit, so a table a sink
 * commits to every few seconds commits more slowly with every snapshot it keeps. Retention is the
 * table's own, as Iceberg's maintenance reads it: {@code history.expire.max-snapshot-age-ms}
 * (default 5 days) and {@code history.expire.min-snapshots-to-keep} (default 1); files that only
 * expired snapshots referenced (manifest lists, manifests, data and delete files replaced since)
 * are deleted. A table with {@code gc.enabled=false} (its files may be shared with other tables)
 * is left alone.
 *
 * <p>Run it on the thread that commits, after a commit: an expiry that fails is logged and tried
 * again an interval later; it never fails the writer.
 */
public final class SnapshotExpiry {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotExpiry.class);

  private final long intervalNanos;
  /** When each table (by location) was last expired by this instance. */
  private final Map<String, Long> lastRun = new ConcurrentHashMap<>();

  /**
   * What one expiry did.
   *
   * @param expired snapshots removed from the table's metadata
   * @param deletedFiles files deleted that only those snapshots referenced
   */
  public record Result(int expired, int deletedFiles, long millis) {}

  private SnapshotExpiry(Duration interval) {
    this.intervalNanos = interval == null ? 0 : interval.toNanos();
  }

  /** Expiry at most once per {@code interval} per table; null or zero: never. */
  public static SnapshotExpiry every(Duration interval) {
    return new SnapshotExpiry(interval);
  }

  public boolean enabled() {
    return intervalNanos > 0;
  }

  /**
   * Expires {@code table}'s snapshots if this instance never did or the interval has passed since
   * it last did: at a writer's first commit (a table may have piled up snapshots while nothing
   * expired them), then once per interval.
   *
   * @return what was done, or null when nothing was due, the table disallows it or it failed
   */
  public Result maybeExpire(Table table) {
    if (!enabled()) {
      return null;
    }
    long now = System.nanoTime();
    Long last = lastRun.get(table.location());
    if (last != null && now - last < intervalNanos) {
      return null;
    }
    lastRun.put(table.location(), now);
    if (!PropertyUtil.propertyAsBoolean(table.properties(), TableProperties.GC_ENABLED, TableProperties.GC_ENABLED_DEFAULT)) {
      LOG.debug("not expiring snapshots of {}: gc.enabled is false", table.name());
      return null;
    }
    try {
      return expire(table);
    } catch (RuntimeException e) {
      LOG.warn("expiring snapshots of {} failed; trying again in {} s: {}", table.name(), intervalNanos / 1_000_000_000, e.toString());
      return null;
    }
  }

  /** Expires {@code table}'s snapshots now, by its retention properties. */
  public static Result expire(Table table) {
    long start = System.nanoTime();
    int before = size(table.snapshots());
    AtomicInteger deleted = new AtomicInteger();
    table.expireSnapshots()
        .deleteWith(path -> {
          table.io().deleteFile(path);
          deleted.incrementAndGet();
        })
        .commit();
    table.refresh();
    Result result = new Result(before - size(table.snapshots()), deleted.get(), (System.nanoTime() - start) / 1_000_000);
    if (result.expired() > 0) {
      LOG.info("expired {} snapshots of {} and deleted {} files they alone referenced in {} ms",
          result.expired(), table.name(), result.deletedFiles(), result.millis());
    }
    return result;
  }

  private static int size(Iterable<?> items) {
    int n = 0;
    for (Object ignored : items) {
      n++;
    }
    return n;
  }
}
