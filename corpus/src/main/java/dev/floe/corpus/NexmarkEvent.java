package dev.floe.corpus;

/**
 * One Nexmark event: exactly one of person, auction or bid. Times are epoch milliseconds (UTC).
 */
public sealed interface NexmarkEvent {
  /** Flink's {@code event_type}: 0 person, 1 auction, 2 bid. */
  int eventType();

  /** Event time in epoch milliseconds. */
  long dateTime();

  record Person(
      long id,
      String name,
      String emailAddress,
      String creditCard,
      String city,
      String state,
      long dateTime,
      String extra)
      implements NexmarkEvent {
    @Override
    public int eventType() {
      return 0;
    }
  }

  record Auction(
      long id,
      String itemName,
      String description,
      long initialBid,
      long reserve,
      long dateTime,
      long expires,
      long seller,
      long category,
      String extra)
      implements NexmarkEvent {
    @Override
    public int eventType() {
      return 1;
    }
  }

  record Bid(
      long auction, long bidder, long price, String channel, String url, long dateTime, String extra)
      implements NexmarkEvent {
    @Override
    public int eventType() {
      return 2;
    }
  }
}
