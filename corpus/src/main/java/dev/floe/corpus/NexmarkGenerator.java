package dev.floe.corpus;

import dev.floe.corpus.NexmarkEvent.Auction;
import dev.floe.corpus.NexmarkEvent.Bid;
import dev.floe.corpus.NexmarkEvent.Person;
import java.util.SplittableRandom;

/**
 * Deterministic Nexmark event generator following the reference generator's rules (see
 * shared NEXMARK.md): event ids from 1, kind by {@code id % 50} (1 person : 3 auctions : 46 bids),
 * event time = base + event number x inter-event delay, hot sellers/bidders/auctions. Unlike the
 * reference, every random choice comes from one seeded RNG, so a seed reproduces a corpus.
 */
public final class NexmarkGenerator {
  /** The reference suite's rate: 10M events/s, i.e. 0.1 us between events. */
  public static final long DEFAULT_EVENTS_PER_SECOND = 10_000_000L;

  /** 2026-11-30 12:00:00 UTC, a fixed base so that runs are reproducible. */
  public static final long DEFAULT_BASE_TIME_MILLIS = 1_796_040_000_000L;

  static final int PERSON_PROPORTION = 1;
  static final int AUCTION_PROPORTION = 3;
  static final int TOTAL_PROPORTION = 50;
  static final long FIRST_PERSON_ID = 1000;
  static final long FIRST_AUCTION_ID = 1000;
  static final long FIRST_CATEGORY_ID = 10;
  private static final int NUM_CATEGORIES = 5;
  private static final int NUM_ACTIVE_PEOPLE = 1000;
  private static final int NUM_IN_FLIGHT_AUCTIONS = 100;
  private static final int PERSON_ID_LEAD = 10;
  private static final int AUCTION_ID_LEAD = 10;
  /** 1 in N: N = 2 gives the 50% hot auctions, N = 4 the 75% hot bidders and sellers. */
  private static final int HOT_AUCTION_RATIO = 2;
  private static final int HOT_BIDDER_RATIO = 4;
  private static final int HOT_SELLER_RATIO = 4;
  private static final int HOT_CHANNEL_RATIO = 2;
  private static final int PERSON_AVERAGE_BYTES = 200;
  private static final int AUCTION_AVERAGE_BYTES = 500;

  private static final String[] FIRST_NAMES = {
    "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"
  };
  private static final String[] LAST_NAMES = {
    "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"
  };
  private static final String[] CITIES = {
    "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle",
    "Kent", "Cheyenne"
  };
  private static final String[] STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
  private static final String[] HOT_CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};
  private static final String[] HOT_URLS = {
    "https://www.nexmark.com/googl/item.htm?query=1",
    "https://www.nexmark.com/faceb/item.htm?query=1",
    "https://www.nexmark.com/baidu/item.htm?query=1",
    "https://www.nexmark.com/apple/item.htm?query=1"
  };
  /** The reference pads {@code extra} with punctuation too, so the corpus exercises JSON escapes. */
  private static final String EXTRA_PUNCTUATION = " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

  private final SplittableRandom random;
  private final long baseTimeMillis;
  private final double millisPerEvent;
  private long nextEventId = 1;

  public NexmarkGenerator(long seed) {
    this(seed, DEFAULT_BASE_TIME_MILLIS, DEFAULT_EVENTS_PER_SECOND);
  }

  public NexmarkGenerator(long seed, long baseTimeMillis, long eventsPerSecond) {
    if (eventsPerSecond <= 0) {
      throw new IllegalArgumentException("eventsPerSecond must be > 0");
    }
    this.random = new SplittableRandom(seed);
    this.baseTimeMillis = baseTimeMillis;
    this.millisPerEvent = 1000.0 / eventsPerSecond;
  }

  /** The id the next event will get (ids start at 1). */
  public long nextEventId() {
    return nextEventId;
  }

  public NexmarkEvent next() {
    long id = nextEventId++;
    long time = baseTimeMillis + (long) ((id - 1) * millisPerEvent);
    int slot = (int) (id % TOTAL_PROPORTION);
    if (slot < PERSON_PROPORTION) {
      return person(id, time);
    } else if (slot < PERSON_PROPORTION + AUCTION_PROPORTION) {
      return auction(id, time);
    } else {
      return bid(id, time);
    }
  }

  private Person person(long eventId, long time) {
    long id = lastBase0PersonId(eventId) + FIRST_PERSON_ID;
    String name = pick(FIRST_NAMES) + " " + pick(LAST_NAMES);
    String email = string(7) + "@" + string(5) + ".com";
    String card =
        String.format(
            "%04d %04d %04d %04d",
            random.nextInt(10_000), random.nextInt(10_000), random.nextInt(10_000), random.nextInt(10_000));
    String city = pick(CITIES);
    String state = pick(STATES);
    int size = 8 + name.length() + email.length() + card.length() + city.length() + state.length() + 8;
    return new Person(id, name, email, card, city, state, time, extra(size, PERSON_AVERAGE_BYTES));
  }

  private Auction auction(long eventId, long time) {
    long id = lastBase0AuctionId(eventId) + FIRST_AUCTION_ID;
    long seller =
        random.nextInt(HOT_SELLER_RATIO) > 0
            ? (lastBase0PersonId(eventId) / HOT_SELLER_RATIO) * HOT_SELLER_RATIO
            : nextBase0PersonId(eventId);
    seller += FIRST_PERSON_ID;
    long category = FIRST_CATEGORY_ID + random.nextInt(NUM_CATEGORIES);
    long initialBid = price();
    long reserve = initialBid + price();
    String itemName = string(20);
    String description = string(100);
    long expires = time + 1 + random.nextLong(20_000);
    int size = 8 + itemName.length() + description.length() + 8 + 8 + 8 + 8 + 8 + 8;
    return new Auction(
        id, itemName, description, initialBid, reserve, time, expires, seller, category,
        extra(size, AUCTION_AVERAGE_BYTES));
  }

  private Bid bid(long eventId, long time) {
    long auction =
        random.nextInt(HOT_AUCTION_RATIO) > 0
            ? (lastBase0AuctionId(eventId) / HOT_AUCTION_RATIO) * HOT_AUCTION_RATIO
            : nextBase0AuctionId(eventId);
    auction += FIRST_AUCTION_ID;
    long bidder =
        random.nextInt(HOT_BIDDER_RATIO) > 0
            ? (lastBase0PersonId(eventId) / HOT_BIDDER_RATIO) * HOT_BIDDER_RATIO + 1
            : nextBase0PersonId(eventId);
    bidder += FIRST_PERSON_ID;
    long price = price();
    String channel;
    String url;
    if (random.nextInt(HOT_CHANNEL_RATIO) > 0) {
      int i = random.nextInt(HOT_CHANNELS.length);
      channel = HOT_CHANNELS[i];
      url = HOT_URLS[i];
    } else {
      int n = random.nextInt(10_000);
      channel = "channel-" + n;
      url =
          "https://www.nexmark.com/" + string(5) + "/" + string(5) + "/" + string(5)
              + "/item.htm?query=1&channel_id=" + Math.abs(Integer.reverse(n));
    }
    // The reference's bid extra is 54 to 81 characters.
    String extra = extraString(54 + random.nextInt(28));
    return new Bid(auction, bidder, price, channel, url, time, extra);
  }

  /** price = round(10^(6u) x 100): 100 .. 100,000,000 cents, log-uniform. */
  private long price() {
    return Math.round(Math.pow(10.0, random.nextDouble() * 6.0) * 100.0);
  }

  private long lastBase0PersonId(long eventId) {
    long epoch = eventId / TOTAL_PROPORTION;
    long offset = eventId % TOTAL_PROPORTION;
    if (offset >= PERSON_PROPORTION) {
      offset = PERSON_PROPORTION - 1;
    }
    return epoch * PERSON_PROPORTION + offset;
  }

  private long lastBase0AuctionId(long eventId) {
    long epoch = eventId / TOTAL_PROPORTION;
    long offset = eventId % TOTAL_PROPORTION;
    if (offset < PERSON_PROPORTION) {
      epoch--;
      offset = AUCTION_PROPORTION - 1;
    } else if (offset >= PERSON_PROPORTION + AUCTION_PROPORTION) {
      offset = AUCTION_PROPORTION - 1;
    } else {
      offset -= PERSON_PROPORTION;
    }
    return Math.max(0, epoch * AUCTION_PROPORTION + offset);
  }

  private long nextBase0PersonId(long eventId) {
    long people = lastBase0PersonId(eventId) + 1;
    long active = Math.min(people, NUM_ACTIVE_PEOPLE);
    return people - active + random.nextLong(active + PERSON_ID_LEAD);
  }

  private long nextBase0AuctionId(long eventId) {
    long last = lastBase0AuctionId(eventId);
    long min = Math.max(last - NUM_IN_FLIGHT_AUCTIONS, 0);
    return min + random.nextLong(last - min + 1 + AUCTION_ID_LEAD);
  }

  private String pick(String[] values) {
    return values[random.nextInt(values.length)];
  }

  /** Lowercase letters with an occasional space, 3 to maxLength characters. */
  private String string(int maxLength) {
    int length = maxLength <= 3 ? maxLength : 3 + random.nextInt(maxLength - 2);
    StringBuilder s = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      s.append(random.nextInt(13) == 0 ? ' ' : (char) ('a' + random.nextInt(26)));
    }
    return s.toString();
  }

  /** Pads an event of about {@code currentBytes} to about {@code averageBytes}. */
  private String extra(int currentBytes, int averageBytes) {
    if (currentBytes >= averageBytes) {
      return "";
    }
    int target = averageBytes - currentBytes;
    int delta = Math.max(1, target / 5);
    return extraString(Math.max(0, target - delta + random.nextInt(2 * delta + 1)));
  }

  private String extraString(int length) {
    StringBuilder s = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      s.append(
          random.nextInt(8) == 0
              ? EXTRA_PUNCTUATION.charAt(random.nextInt(EXTRA_PUNCTUATION.length()))
              : (char) ('a' + random.nextInt(26)));
    }
    return s.toString();
  }
}
