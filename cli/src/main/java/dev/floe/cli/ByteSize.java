package dev.floe.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Sizes on the command line: {@code 1048576}, {@code 512k}, {@code 128MiB}, {@code 1g} (powers of 1024). */
final class ByteSize implements ITypeConverter<Long> {
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmg]?)(i?b)?");

  @Override
  public Long convert(String value) {
    Matcher m = SIZE.matcher(value.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new TypeConversionException("'" + value + "' is not a size (e.g. 1048576, 512k, 128MiB)");
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
      throw new TypeConversionException("'" + value + "' is too large");
    }
    if (number <= 0 || Long.numberOfLeadingZeros(number) <= shift) {
      throw new TypeConversionException("'" + value + "' must be > 0 and < 8 EiB");
    }
    return number << shift;
  }
}
