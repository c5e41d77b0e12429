package dev.floe.iceberg;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sizes as floe's settings and flags take them: {@code 1048576}, {@code 512k}, {@code 128MiB},
 * {@code 1g} (powers of 1024).
 */
public final class ByteSizes {
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmg]?)(i?b)?");

  private ByteSizes() {}

  /**
   * @throws IllegalArgumentException if {@code text} is not a size, or not above 0 and below 8 EiB
   */
  public static long parse(String text) {
    Matcher m = SIZE.matcher(text.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a size (e.g. 1048576, 512k, 128MiB)");
    }
    int shift =
        switch (m.group(2)) {
          case "k" -> 10;
          case "m" -> 20;
          case "g" -> 30;
          default -> 0;
        };
    long number;
    try {
      number = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is too large");
    }
    if (number <= 0 || Long.numberOfLeadingZeros(number) <= shift) {
      throw new IllegalArgumentException("'" + text + "' must be > 0 and < 8 EiB");
    }
    return number << shift;
  }
}
