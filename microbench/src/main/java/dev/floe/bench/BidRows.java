package dev.floe.bench;

import dev.floe.corpus.NexmarkEvent;
import dev.floe.testing.Canonical;
import dev.floe.testing.TableFingerprint;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows a bids table should hold after the table benchmark's writes, as the one fingerprint all
 * checks use ({@link TableFingerprint} over {@link Canonical#bid} rows), computed from the
 * generator's bids so that a table and its input compare without sorting millions of rows.
 */
final class BidRows {
  private BidRows() {}

  /** An append of {@code bids}: every bid. */
  static TableFingerprint appended(List<NexmarkEvent.Bid> bids) {
    return TableFingerprint.ofCanonical(bids.stream().map(Canonical::bid).toList());
  }

  /** An upsert of {@code bids} by (auction, bidder): the last bid per key. */
  static TableFingerprint upserted(List<NexmarkEvent.Bid> bids) {
    return TableFingerprint.ofCanonical(latestPerKey(bids).values().stream().map(Canonical::bid).toList());
  }

  /** The number of distinct (auction, bidder) keys among {@code bids}. */
  static int distinctKeys(List<NexmarkEvent.Bid> bids) {
    return latestPerKey(bids).size();
  }

  private record Key(long auction, long bidder) {}

  private static Map<Key, NexmarkEvent.Bid> latestPerKey(List<NexmarkEvent.Bid> bids) {
    Map<Key, NexmarkEvent.Bid> latest = new LinkedHashMap<>();
    for (NexmarkEvent.Bid bid : bids) {
      latest.put(new Key(bid.auction(), bid.bidder()), bid);
    }
    return latest;
  }
}
