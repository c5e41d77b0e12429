package dev.floe.corpus;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * The flat ~142-byte events of the Redpanda Connect / Kafka Connect Iceberg comparison: {@code id}
 * (uuid text), {@code user_id} (long), {@code event_type} (a few short strings), {@code value}
 * (double), {@code info} (short string), {@code ts} (ISO-8601 UTC with millis). Seeded and
 * deterministic.
 */
public final class SyntheticGenerator {
  private static final String[] EVENT_TYPES = {"click", "view", "purchase", "signup", "logout"};
  private static final String[] INFO = {"ok", "mobile", "web", "retry", "promo", "beta", "eu", "us-east"};

  private final SplittableRandom random;
  private final long baseTimeMillis;
  private long sequence;

  public SyntheticGenerator(long seed) {
    this(seed, NexmarkGenerator.DEFAULT_BASE_TIME_MILLIS);
  }

  public SyntheticGenerator(long seed, long baseTimeMillis) {
    this.random = new SplittableRandom(seed);
    this.baseTimeMillis = baseTimeMillis;
  }

  /** One event as {@code value} JSON record (one line, no newline). */
  public String nextJson() {
    long msb = (random.nextLong() & ~0xF000L) | 0x4000L; // version 4
    long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // IETF variant
    String id = new UUID(msb, lsb).toString();
    long userId = 1 + random.nextLong(1_000_000);
    String eventType = EVENT_TYPES[random.nextInt(EVENT_TYPES.length)];
    double value = random.nextInt(10_000_000) / 100.0;
    String info = INFO[random.nextInt(INFO.length)];
    String ts = Instant.ofEpochMilli(baseTimeMillis + sequence++).toString();
    StringBuilder out = new StringBuilder(160);
    out.append("{\"id\":\"").append(id);
    out.append("\",\"user_id\":").append(userId);
    out.append(",\"event_type\":\"").append(eventType);
    out.append("\",\"value\":").append(value);
    out.append(",\"info\":\"").append(info);
    out.append("\",\"ts\":\"").append(withMillis(ts)).append("\"}");
    return out.toString();
  }

  public byte[] nextBytes() {
    return nextJson().getBytes(StandardCharsets.UTF_8);
  }

  /** Instant.toString drops a zero fraction; keep the width fixed at millis. */
  private static String withMillis(String instant) {
    return instant.length() == 20 ? instant.substring(0, 19) + ".000Z" : instant;
  }
}
