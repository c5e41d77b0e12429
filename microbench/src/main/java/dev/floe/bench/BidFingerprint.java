package dev.floe.bench;

import dev.floe.corpus.NexmarkEvent;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * An order-independent fingerprint of a multiset of bid rows: the row count and the sum of a
 * 64-bit hash of every row's values. Computed from the generator's bids (what a table should
 * hold) and from a table read back by Iceberg's generic reader (what it holds), so that two
 * tables -- and a table and its input -- compare without sorting millions of rows.
 */
record BidFingerprint(long rows, long hashSum) {

  /** The rows an append of {@code bids} leaves in a table: every bid. */
  static BidFingerprint ofAppend(List<NexmarkEvent.Bid> bids) {
    long sum = 0;
    for (NexmarkEvent.Bid bid : bids) {
      sum += hash(bid);
    }
    return new BidFingerprint(bids.size(), sum);
  }

  /** The rows an upsert of {@code bids} leaves: the last bid per (auction, bidder). */
  static BidFingerprint ofUpsert(List<NexmarkEvent.Bid> bids) {
    Map<Key, Long> latest = new HashMap<>();
    for (NexmarkEvent.Bid bid : bids) {
      latest.put(new Key(bid.auction(), bid.bidder()), hash(bid));
    }
    long sum = 0;
    for (long h : latest.values()) {
      sum += h;
    }
    return new BidFingerprint(latest.size(), sum);
  }

  /** The number of distinct (auction, bidder) keys among {@code bids}. */
  static int distinctKeys(List<NexmarkEvent.Bid> bids) {
    Map<Key, Boolean> keys = new HashMap<>();
    for (NexmarkEvent.Bid bid : bids) {
      keys.put(new Key(bid.auction(), bid.bidder()), Boolean.TRUE);
    }
    return keys.size();
  }

  /** Rows read back from a bids table (columns in {@code NexmarkBidStream.SCHEMA} order). */
  static BidFingerprint ofRecords(Iterable<Record> records) {
    long rows = 0;
    long sum = 0;
    for (Record r : records) {
      sum +=
          hash(
              (Long) r.get(0),
              (Long) r.get(1),
              (Long) r.get(2),
              r.get(3).toString(),
              r.get(4).toString(),
              DateTimeUtil.microsFromTimestamp((LocalDateTime) r.get(5)),
              r.get(6) == null ? null : r.get(6).toString());
      rows++;
    }
    return new BidFingerprint(rows, sum);
  }

  private record Key(long auction, long bidder) {}

  private static long hash(NexmarkEvent.Bid bid) {
    return hash(
        bid.auction(),
        bid.bidder(),
        bid.price(),
        bid.channel(),
        bid.url(),
        bid.dateTime() * 1000, // epoch millis -> the table's microseconds
        bid.extra());
  }

  private static long hash(
      long auction, long bidder, long price, String channel, String url, long micros, String extra) {
    long h = 0x243F6A8885A308D3L;
    h = mix(h ^ auction);
    h = mix(h ^ bidder);
    h = mix(h ^ price);
    h = mix(h ^ string(channel));
    h = mix(h ^ string(url));
    h = mix(h ^ micros);
    return mix(h ^ (extra == null ? 0x9E3779B97F4A7C15L : string(extra)));
  }

  /** 64-bit FNV-1a over the UTF-16 code units. */
  private static long string(String s) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < s.length(); i++) {
      h = (h ^ s.charAt(i)) * 0x100000001b3L;
    }
    return h;
  }

  /** The finalizer of SplitMix64: every input bit affects every output bit. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
