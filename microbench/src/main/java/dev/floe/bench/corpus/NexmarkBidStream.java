package dev.floe.bench.corpus;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import dev.floe.corpus.FlinkTimestamps;
import dev.floe.corpus.JsonStrings;
import dev.floe.corpus.NexmarkEvent;
import dev.floe.corpus.NexmarkGenerator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The bid stream of the seeded Nexmark corpus as a table of its own: one flat JSON object per bid
 * (what a bids topic carries), and the Iceberg schema of the bids table, keyed by (auction,
 * bidder) for upserts.
 */
public final class NexmarkBidStream {
  private NexmarkBidStream() {}

  /**
   * The bids table: the bid's fields at the top level, {@code auction} and {@code bidder} the
   * identifier fields (a later bid of the same bidder on the same auction replaces the earlier).
   */
  public static final Schema SCHEMA =
      new Schema(
          List.of(
              required(1, "auction", Types.LongType.get()),
              required(2, "bidder", Types.LongType.get()),
              required(3, "price", Types.LongType.get()),
              required(4, "channel", Types.StringType.get()),
              required(5, "url", Types.StringType.get()),
              required(6, "dateTime", Types.TimestampType.withoutZone()),
              optional(7, "extra", Types.StringType.get())),
          Set.of(1, 2));

  /** The first {@code count} bids of the Nexmark corpus of {@code seed}, in stream order. */
  public static List<NexmarkEvent.Bid> bids(long seed, int count) {
    NexmarkGenerator generator = new NexmarkGenerator(seed);
    List<NexmarkEvent.Bid> out = new ArrayList<>(count);
    while (out.size() < count) {
      if (generator.next() instanceof NexmarkEvent.Bid bid) {
        out.add(bid);
      }
    }
    return out;
  }

  /**
   * One bid as a flat JSON object in schema order, the timestamp in Flink's SQL text (as the
   * whole-event JSON of {@code NexmarkJson} writes it).
   */
  public static byte[] toJson(NexmarkEvent.Bid bid) {
    StringBuilder out = new StringBuilder(256);
    out.append("{\"auction\":").append(bid.auction());
    out.append(",\"bidder\":").append(bid.bidder());
    out.append(",\"price\":").append(bid.price());
    out.append(",\"channel\":");
    JsonStrings.appendQuoted(bid.channel(), out);
    out.append(",\"url\":");
    JsonStrings.appendQuoted(bid.url(), out);
    out.append(",\"dateTime\":");
    JsonStrings.appendQuoted(FlinkTimestamps.format(bid.dateTime()), out);
    out.append(",\"extra\":");
    JsonStrings.appendQuoted(bid.extra(), out);
    return out.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The bids as Kafka message values. */
  public static List<byte[]> messages(List<NexmarkEvent.Bid> bids) {
    List<byte[]> out = new ArrayList<>(bids.size());
    for (NexmarkEvent.Bid bid : bids) {
      out.add(toJson(bid));
    }
    return out;
  }
}
