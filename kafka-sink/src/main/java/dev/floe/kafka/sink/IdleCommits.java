package dev.floe.kafka.sink;

import java.util.HashMap;
import java.util.Map;

/**
 * When a table that gets no files is committed without them, storing the offsets reached
 * ({@code idle.commit.cycles}; the Kafka sink's and the connector's): after that many cycles in a
 * row in which its partitions moved past what it stores, and at the last cycle before a stop or a
 * rebalance. A table left alone would hold its partitions back to its last data, and every resume
 * would read everything since then again. Used by one thread.
 *
 * @param <T> what names a table
 */
public final class IdleCommits<T> {
  private final int cycles;
  /** Cycles in a row each table got no files while its partitions moved on. */
  private final Map<T, Integer> idle = new HashMap<>();

  /** @param cycles the cycles in a row after which an idle table is committed; 0: never */
  public IdleCommits(int cycles) {
    if (cycles < 0) {
      throw new IllegalArgumentException("idle commit cycles must be at least 0, got " + cycles);
    }
    this.cycles = cycles;
  }

  /**
   * After a cycle in which {@code table} got no files: how many cycles in a row it has been idle
   * while behind, if it is to be committed without files now; 0 if not. Once due, it stays due
   * until {@link #reset} says the commit went through: a commit that failed is tried again in the
   * next cycle (helper-76: the count was cleared before the commit, so a failed one waited another
   * {@code cycles} cycles, and a quiet cycle in between could end the outage that failed it).
   *
   * @param behind whether a partition moved past the offset the table stores
   * @param last whether this is the last cycle before a stop or a rebalance
   */
  public int due(T table, boolean behind, boolean last) {
    if (cycles == 0) {
      return 0;
    }
    if (!behind) {
      idle.remove(table);
      return 0;
    }
    int count = idle.merge(table, 1, Integer::sum);
    return last || count >= cycles ? count : 0;
  }

  /** The table got files, or its commit without files went through: it starts counting again. */
  public void reset(T table) {
    idle.remove(table);
  }
}
