package dev.floe.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Rates JMH reports next to ops/s: {@code rows} (rows or messages per second) and {@code bytes}
 * (input bytes per second). Reset every iteration, so they are per-second rates.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class RateCounters {
  public long rows;
  public long bytes;

  @Setup(Level.Iteration)
  public void reset() {
    rows = 0;
    bytes = 0;
  }

  public void add(long rowCount, long byteCount) {
    rows += rowCount;
    bytes += byteCount;
  }
}
