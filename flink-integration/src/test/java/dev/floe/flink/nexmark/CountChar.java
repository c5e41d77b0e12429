package dev.floe.flink.nexmark;

import org.apache.flink.table.functions.ScalarFunction;

/** q14's {@code count_char(text, c)}: how many times the character {@code c} occurs in {@code text}. */
public final class CountChar extends ScalarFunction {
  public long eval(String text, String c) {
    if (text == null || c == null || c.isEmpty()) {
      return 0;
    }
    char wanted = c.charAt(0);
    long count = 0;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == wanted) {
        count++;
      }
    }
    return count;
  }
}
