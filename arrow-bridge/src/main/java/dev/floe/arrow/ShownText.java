package dev.floe.arrow;

/**
 * Text from records (a key, a route value, a field path) as an error, a log line or a dead
 * letter's error header shows it: control characters, quotes and backslashes escaped, and cut. As
 * it was, a newline and terminal codes forged a log line, and a 9 MiB value doubled its dead letter
 * past what the producer sends (helper-80, helper-83).
 */
public final class ShownText {
  /** The characters shown of a text. */
  public static final int LONGEST = 200;

  private ShownText() {}

  /** {@code text} in single quotes, escaped, its first {@link #LONGEST} characters and its length if cut. */
  public static String quoted(String text) {
    String shown = "'" + escaped(text, LONGEST) + "'";
    return text.length() > LONGEST ? shown + " (cut; " + text.length() + " characters)" : shown;
  }

  /**
   * The first {@code longest} characters of {@code text}, a newline as backslash-n, other control
   * characters as backslash-u and four hex digits, quotes and backslashes behind a backslash.
   */
  public static String escaped(String text, int longest) {
    StringBuilder out = new StringBuilder();
    int shown = Math.min(text.length(), longest);
    for (int i = 0; i < shown; i++) {
      char c = text.charAt(i);
      if (c == '\n') {
        out.append("\\n");
      } else if (c == '\'' || c == '\\') {
        out.append('\\').append(c);
      } else if (Character.isISOControl(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
