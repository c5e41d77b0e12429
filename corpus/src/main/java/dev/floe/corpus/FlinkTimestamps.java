package dev.floe.corpus;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Flink's default SQL timestamp text: {@code yyyy-MM-dd HH:mm:ss} in UTC wall-clock time, plus a
 * fraction with trailing zeros dropped ({@code 2026-11-30 12:00:01.12}), none when the millis are 0.
 */
public final class FlinkTimestamps {
  private FlinkTimestamps() {}

  public static String format(long epochMillis) {
    LocalDateTime t = LocalDateTime.ofInstant(Instant.ofEpochMilli(epochMillis), ZoneOffset.UTC);
    StringBuilder s = new StringBuilder(23);
    pad(s, t.getYear(), 4).append('-');
    pad(s, t.getMonthValue(), 2).append('-');
    pad(s, t.getDayOfMonth(), 2).append(' ');
    pad(s, t.getHour(), 2).append(':');
    pad(s, t.getMinute(), 2).append(':');
    pad(s, t.getSecond(), 2);
    int millis = t.getNano() / 1_000_000;
    if (millis != 0) {
      s.append('.');
      String digits = Integer.toString(1000 + millis).substring(1);
      int end = digits.length();
      while (digits.charAt(end - 1) == '0') {
        end--;
      }
      s.append(digits, 0, end);
    }
    return s.toString();
  }

  private static StringBuilder pad(StringBuilder s, int value, int width) {
    String digits = Integer.toString(value);
    for (int i = digits.length(); i < width; i++) {
      s.append('0');
    }
    return s.append(digits);
  }
}
