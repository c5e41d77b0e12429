package dev.floe.corpus;

/** JSON string quoting, as RFC 8259 requires: quote, backslash and control characters escaped. */
public final class JsonStrings {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private JsonStrings() {}

  public static void appendQuoted(String value, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
