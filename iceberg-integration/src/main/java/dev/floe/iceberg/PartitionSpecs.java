package dev.floe.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;

/**
 * Partition specs written as in Iceberg's SQL DDL: comma-separated terms, each a column (identity)
 * or a transform of one: {@code bucket(N, col)}, {@code truncate(W, col)}, {@code year(col)},
 * {@code month(col)}, {@code day(col)}, {@code hour(col)} (plural forms too), {@code identity(col)},
 * {@code void(col)}. Example: {@code bucket(4,id),day(ts)}. Used by the CLI's {@code
 * --partition-by} and the sink's {@code partition.by} setting.
 */
public final class PartitionSpecs {
  /** {@code transform(args)}, or a column name (any characters but parentheses and commas). */
  private static final Pattern TERM = Pattern.compile("(\\w+)\\s*\\(([^()]*)\\)|([^(),]+)");

  private PartitionSpecs() {}

  /** The spec for {@code schema}; blank text means unpartitioned. */
  public static PartitionSpec parse(String text, Schema schema) {
    PartitionSpec.Builder spec = PartitionSpec.builderFor(schema);
    for (String term : terms(text)) {
      Matcher m = TERM.matcher(term);
      if (!m.matches()) {
        throw new IllegalArgumentException("partition term '" + term + "' is not 'col' or 'transform(args)'");
      }
      try {
        if (m.group(3) != null) {
          spec.identity(m.group(3));
        } else {
          add(spec, m.group(1).toLowerCase(Locale.ROOT), arguments(m.group(2)), term);
        }
      } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
        throw new IllegalArgumentException("partition term '" + term + "': " + e.getMessage(), e);
      }
    }
    try {
      return spec.build(); // checks each transform against its column's type
    } catch (org.apache.iceberg.exceptions.ValidationException e) {
      throw new IllegalArgumentException("partitioning '" + text + "': " + e.getMessage(), e);
    }
  }

  /**
   * The columns {@code text}'s terms partition by, as written (a dotted name for a nested one);
   * terms that are not well formed are left out ({@link #parse} names them).
   */
  public static List<String> sourceColumns(String text) {
    List<String> columns = new ArrayList<>();
    for (String term : terms(text)) {
      Matcher m = TERM.matcher(term);
      if (!m.matches()) {
        continue;
      }
      if (m.group(3) != null) {
        columns.add(m.group(3).strip());
        continue;
      }
      List<String> args = arguments(m.group(2));
      String transform = m.group(1).toLowerCase(Locale.ROOT);
      if ((transform.equals("bucket") || transform.equals("truncate"))
          && args.size() == 2 && isNumber(args.get(0)) != isNumber(args.get(1))) {
        columns.add(column(args, term));
      } else if (args.size() == 1 && !args.getFirst().isEmpty()) {
        columns.add(args.getFirst());
      }
    }
    return columns;
  }

  private static void add(PartitionSpec.Builder spec, String transform, List<String> args, String term) {
    switch (transform) {
      case "bucket" -> spec.bucket(column(args, term), number(args, term));
      case "truncate" -> spec.truncate(column(args, term), number(args, term));
      case "year", "years" -> spec.year(single(args, term));
      case "month", "months" -> spec.month(single(args, term));
      case "day", "days" -> spec.day(single(args, term));
      case "hour", "hours" -> spec.hour(single(args, term));
      case "identity" -> spec.identity(single(args, term));
      case "void" -> spec.alwaysNull(single(args, term));
      default -> throw new IllegalArgumentException("unknown transform '" + transform + "' in '" + term + "'");
    }
  }

  /** Splits on the commas between terms, not those inside parentheses. */
  private static List<String> terms(String text) {
    List<String> terms = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        terms.add(text.substring(start, i).strip());
        start = i + 1;
      }
    }
    String last = text.substring(start).strip();
    if (!last.isEmpty() || !terms.isEmpty()) {
      terms.add(last);
    }
    return terms;
  }

  private static List<String> arguments(String inner) {
    List<String> args = new ArrayList<>();
    for (String a : inner.split(",", -1)) {
      args.add(a.strip());
    }
    return args;
  }

  private static String single(List<String> args, String term) {
    if (args.size() != 1 || args.getFirst().isEmpty()) {
      throw new IllegalArgumentException("'" + term + "' takes one column");
    }
    return args.getFirst();
  }

  /** bucket and truncate take a number and a column, in either order (Spark writes both). */
  private static int number(List<String> args, String term) {
    twoArguments(args, term);
    String n = isNumber(args.get(0)) ? args.get(0) : args.get(1);
    int value = Integer.parseInt(n);
    if (value <= 0) {
      throw new IllegalArgumentException("'" + term + "' needs a number > 0");
    }
    return value;
  }

  private static String column(List<String> args, String term) {
    twoArguments(args, term);
    return isNumber(args.get(0)) ? args.get(1) : args.get(0);
  }

  private static void twoArguments(List<String> args, String term) {
    if (args.size() != 2 || isNumber(args.get(0)) == isNumber(args.get(1))) {
      throw new IllegalArgumentException("'" + term + "' takes a number and a column, e.g. bucket(16, id)");
    }
  }

  private static boolean isNumber(String s) {
    return !s.isEmpty() && s.chars().allMatch(Character::isDigit);
  }
}
