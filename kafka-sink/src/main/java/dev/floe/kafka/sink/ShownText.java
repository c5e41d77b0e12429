package dev.floe.kafka.sink;

/**
 * A record's text as an error, a log line or a dead letter's error header shows it: quoted, control
 * characters escaped and cut after {@value #LONGEST} characters. A route value went into all three
 * whole and as it was (helper-83): a 9 MiB value doubled its dead letter past what the producer
 * sends, and a newline and terminal codes forged a log line.
 */
final class ShownText {
  static final int LONGEST = 200;

  private ShownText() {}

  static String quoted(String text) {
    StringBuilder out = new StringBuilder("'");
    int shown = Math.min(text.length(), LONGEST);
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
    out.append('\'');
    return text.length() > LONGEST ? out.append(" (cut; ").append(text.length()).append(" characters)").toString()
        : out.toString();
  }
}
