package dev.floe.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CorpusTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern FLINK_TS =
      Pattern.compile("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(\\.\\d{0,2}[1-9])?");

  private static List<String> nexmark(long seed, int n) {
    NexmarkGenerator g = new NexmarkGenerator(seed);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(NexmarkJson.toString(g.next()));
    }
    return out;
  }

  @Test
  void sameSeedSameBytesOtherSeedOtherBytes() {
    assertEquals(nexmark(7, 2000), nexmark(7, 2000));
    assertNotEquals(nexmark(7, 2000), nexmark(8, 2000));
    SyntheticGenerator a = new SyntheticGenerator(3);
    SyntheticGenerator b = new SyntheticGenerator(3);
    for (int i = 0; i < 100; i++) {
      assertEquals(a.nextJson(), b.nextJson());
    }
  }

  @Test
  void nexmarkFollowsTheReferenceShapes() throws Exception {
    int[] kinds = new int[3];
    boolean sawEscape = false;
    boolean sawFraction = false;
    boolean sawWholeSecond = false;
    List<String> events = nexmark(42, 50_000);
    for (String line : events) {
      JsonNode e = JSON.readTree(line);
      int type = e.get("event_type").asInt();
      kinds[type]++;
      String[] names = {"person", "auction", "bid"};
      for (int k = 0; k < 3; k++) {
        assertEquals(k == type, !e.get(names[k]).isNull(), line);
      }
      JsonNode body = e.get(names[type]);
      String ts = body.get("dateTime").asText();
      assertTrue(FLINK_TS.matcher(ts).matches(), ts);
      sawFraction |= ts.contains(".");
      sawWholeSecond |= !ts.contains(".");
      sawEscape |= line.contains("\\\\") || line.contains("\\\"");
      switch (type) {
        case 0 -> {
          assertTrue(body.get("id").asLong() >= 1000);
          assertTrue(body.get("creditCard").asText().matches("\\d{4} \\d{4} \\d{4} \\d{4}"));
          assertTrue(body.get("emailAddress").asText().matches("[a-z ]+@[a-z ]+\\.com"));
          assertTrue(Math.abs(line.length() - 330) < 150, "person event size " + line.length());
        }
        case 1 -> {
          long category = body.get("category").asLong();
          assertTrue(category >= 10 && category <= 14);
          assertTrue(body.get("reserve").asLong() > body.get("initialBid").asLong());
          assertTrue(body.get("itemName").asText().length() <= 20);
          assertTrue(body.get("description").asText().length() <= 100);
        }
        default -> {
          long price = body.get("price").asLong();
          assertTrue(price >= 100 && price <= 100_000_000, "price " + price);
          int extra = body.get("extra").asText().length();
          assertTrue(extra >= 54 && extra <= 81, "bid extra " + extra);
          assertTrue(body.get("auction").asLong() >= 1000 && body.get("bidder").asLong() >= 1000);
          assertTrue(body.get("url").asText().startsWith("https://www.nexmark.com/"));
        }
      }
    }
    assertEquals(1000, kinds[0], "1 person in 50 events");
    assertEquals(3000, kinds[1], "3 auctions in 50 events");
    assertEquals(46_000, kinds[2], "46 bids in 50 events");
    assertTrue(sawEscape, "extra exercises JSON escapes");
    assertTrue(sawFraction && sawWholeSecond, "fractions dropped only when millis are 0");
  }

  @Test
  void flinkTimestampsDropTrailingZeros() {
    assertEquals("2026-11-30 12:00:00", FlinkTimestamps.format(NexmarkGenerator.DEFAULT_BASE_TIME_MILLIS));
    assertEquals("2026-11-30 12:00:01.12", FlinkTimestamps.format(NexmarkGenerator.DEFAULT_BASE_TIME_MILLIS + 1120));
    assertEquals("2026-11-30 12:00:00.005", FlinkTimestamps.format(NexmarkGenerator.DEFAULT_BASE_TIME_MILLIS + 5));
    assertEquals("1969-12-31 23:59:59.9", FlinkTimestamps.format(-100));
  }

  @Test
  void syntheticEventsAreAbout142Bytes() throws Exception {
    SyntheticGenerator g = new SyntheticGenerator(1);
    long total = 0;
    int n = 10_000;
    for (int i = 0; i < n; i++) {
      byte[] bytes = g.nextBytes();
      total += bytes.length;
      if (i < 100) {
        JsonNode e = JSON.readTree(bytes);
        assertEquals(36, e.get("id").asText().length());
        assertTrue(e.get("ts").asText().matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z"));
        assertTrue(e.get("user_id").isIntegralNumber() && e.get("value").isNumber());
      }
    }
    double average = (double) total / n;
    assertTrue(Math.abs(average - 142) < 6, "average size " + average);
  }
}
