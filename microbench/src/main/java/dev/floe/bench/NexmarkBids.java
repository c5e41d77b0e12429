package dev.floe.bench;

import dev.floe.corpus.NexmarkEvent;
import dev.floe.corpus.NexmarkGenerator;
import java.util.List;

/**
 * Nexmark bid rows in the q0 shape plus channel and url (auction, bidder, price, channel, url,
 * dateTime, extra), taken from floe's seeded Nexmark generator: the same bids `floe generate
 * nexmark` writes as JSON.
 */
final class NexmarkBids {
  static final int DEFAULT_ROWS = 1_000_000;

  private NexmarkBids() {}

  static GeneratedTable generate(int rows, long seed) {
    long[] auction = new long[rows];
    long[] bidder = new long[rows];
    long[] price = new long[rows];
    String[] channel = new String[rows];
    String[] url = new String[rows];
    long[] dateTime = new long[rows];
    String[] extra = new String[rows];
    NexmarkGenerator generator = new NexmarkGenerator(seed);
    for (int row = 0; row < rows; ) {
      if (generator.next() instanceof NexmarkEvent.Bid bid) {
        auction[row] = bid.auction();
        bidder[row] = bid.bidder();
        price[row] = bid.price();
        channel[row] = bid.channel();
        url[row] = bid.url();
        dateTime[row] = bid.dateTime() * 1000; // millis -> Iceberg timestamp micros
        extra[row] = bid.extra();
        row++;
      }
    }
    return new GeneratedTable(
        "nexmarkBids",
        rows,
        List.of(
            Column.int64(1, "auction", auction),
            Column.int64(2, "bidder", bidder),
            Column.int64(3, "price", price),
            Column.utf8(4, "channel", false, channel),
            Column.utf8(5, "url", false, url),
            Column.timestampMicros(6, "dateTime", dateTime),
            Column.utf8(7, "extra", true, extra)));
  }
}
