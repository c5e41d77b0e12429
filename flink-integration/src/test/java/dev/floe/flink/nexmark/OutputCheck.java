package dev.floe.flink.nexmark;

import dev.floe.testing.TableFingerprint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * How the outputs of two engines running one query are compared, after each has been checked on
 * its own. A failed check throws {@link IllegalStateException} naming the query and what differs.
 */
public sealed interface OutputCheck {

  /**
   * {@code exact} (or {@code exact, every bid}: also one row per bid of the topic), {@code columns
   * a, b, c} or {@code processing-time}, as a query's header says.
   */
  static OutputCheck parse(String text) {
    if (text.equals("exact")) {
      return new Exact(false);
    }
    if (text.equals("exact, every bid")) {
      return new Exact(true);
    }
    if (text.equals("processing-time")) {
      return new ProcessingTimeWindows();
    }
    if (text.startsWith("columns ")) {
      return new Columns(Arrays.stream(text.substring("columns ".length()).split(",")).map(String::strip).toList());
    }
    throw new IllegalArgumentException("unknown check '" + text + "' (exact, exact, every bid, columns a, b, processing-time)");
  }

  /**
   * Checks one engine's output table on its own and returns the fingerprint two engines must
   * share; {@code bids} is how many bids the corpus holds.
   */
  TableFingerprint fingerprint(String query, Table output, long bids);

  /** Whether any run, however short, must write rows. */
  default boolean alwaysWrites() {
    return true;
  }

  /** Every column of every row, as a multiset; with {@code everyBid}, one row per bid too. */
  record Exact(boolean everyBid) implements OutputCheck {
    @Override
    public TableFingerprint fingerprint(String query, Table output, long bids) {
      TableFingerprint fingerprint = TableFingerprint.of(output);
      if (everyBid && fingerprint.rows() != bids) {
        throw new IllegalStateException(query + " wrote " + fingerprint.rows() + " rows, the topic has " + bids + " bids");
      }
      return fingerprint;
    }
  }

  /** The multiset of rows projected on the columns that do not depend on arrival order. */
  record Columns(List<String> columns) implements OutputCheck {
    @Override
    public TableFingerprint fingerprint(String query, Table output, long bids) {
      return TableFingerprint.of(output, columns);
    }
  }

  /**
   * Processing-time windows (q12): which window a bid lands in depends on when it is processed, and
   * a window still open when the bounded input ends is never fired (Flink drops pending
   * processing-time timers at the end of input), so a run shorter than a window writes nothing.
   * Each output is checked for what holds regardless: no bid counted twice (at most the corpus's
   * bids in all), windows 10 s long, one row per bidder and window.
   */
  record ProcessingTimeWindows() implements OutputCheck {
    @Override
    public boolean alwaysWrites() {
      return false;
    }

    @Override
    public TableFingerprint fingerprint(String query, Table output, long bids) {
      long rows = 0;
      long counted = 0;
      Set<String> windows = new HashSet<>();
      try (CloseableIterable<Record> records = IcebergGenerics.read(output).build()) {
        for (Record r : records) {
          rows++;
          long count = (Long) r.getField("bid_count");
          LocalDateTime start = (LocalDateTime) r.getField("starttime");
          LocalDateTime end = (LocalDateTime) r.getField("endtime");
          if (count < 1 || !Duration.between(start, end).equals(Duration.ofSeconds(10))) {
            throw new IllegalStateException(query + ": a row outside the bounds: " + r);
          }
          if (!windows.add(r.getField("bidder") + "@" + start)) {
            throw new IllegalStateException(query + ": bidder and window twice: " + r);
          }
          counted += count;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (counted > bids) {
        throw new IllegalStateException(query + ": " + counted + " bids counted in " + rows + " rows, the corpus has " + bids);
      }
      return new TableFingerprint(0, 0); // nothing two runs must share
    }
  }
}
