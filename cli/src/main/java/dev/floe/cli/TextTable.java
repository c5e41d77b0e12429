package dev.floe.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Plain-text columns for reports: padded to the widest cell, numbers right-aligned. */
final class TextTable {
  private final List<String[]> rows = new ArrayList<>();
  private final boolean[] right;

  /** Headers starting with {@code >} are right-aligned (the marker is not printed). */
  TextTable(String... headers) {
    right = new boolean[headers.length];
    String[] names = new String[headers.length];
    for (int i = 0; i < headers.length; i++) {
      right[i] = headers[i].startsWith(">");
      names[i] = right[i] ? headers[i].substring(1) : headers[i];
    }
    rows.add(names);
  }

  TextTable row(Object... cells) {
    String[] text = new String[right.length];
    for (int i = 0; i < text.length; i++) {
      Object cell = i < cells.length ? cells[i] : null;
      text[i] = switch (cell) {
        case null -> "-";
        case Long l -> String.format("%,d", l);
        case Integer n -> String.format("%,d", n);
        default -> cell.toString();
      };
    }
    rows.add(text);
    return this;
  }

  void print(PrintWriter out, String indent) {
    int[] widths = new int[right.length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder(indent);
      for (int i = 0; i < row.length; i++) {
        String pad = " ".repeat(widths[i] - row[i].length());
        line.append(right[i] ? pad + row[i] : row[i] + (i == row.length - 1 ? "" : pad));
        if (i < row.length - 1) {
          line.append("  ");
        }
      }
      out.println(line.toString().stripTrailing());
    }
  }

  /** A value for a table cell: control characters escaped, at most {@code max} characters. */
  static String cell(String value, int max) {
    if (value == null) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < value.length() && out.length() <= max; i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (Character.isISOControl(c)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.length() > max ? out.substring(0, max - 3) + "..." : out.toString();
  }
}
