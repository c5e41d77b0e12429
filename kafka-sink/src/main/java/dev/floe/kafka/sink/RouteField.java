package dev.floe.kafka.sink;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Reads one top-level string field of a JSON object message without parsing the whole message:
 * what a route field needs per record. Finds {@code "name":} at depth one (skipping nested values
 * and strings) and returns the string value, or null when the field is absent, not a string, or
 * the message is not an object. Escapes in the key and the value are decoded as JSON defines them;
 * a value with an escape JSON does not define is a {@link MalformedValueException}, which the sink
 * treats as a bad record (the native decoder checks the rest of the message later).
 *
 * <p>Scans a heap buffer's bytes in place: the message is not copied.
 */
public final class RouteField {
  private final byte[] name;

  public RouteField(String name) {
    this.name = name.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Reads the message between the buffer's position and limit; the buffer is left as it was.
   *
   * @throws MalformedValueException if the field's value is a string with an invalid escape
   */
  public String read(ByteBuffer message) {
    return read(message, false);
  }

  /**
   * As {@link #read(ByteBuffer)}, and a number's or boolean's JSON text too ({@code 7}, {@code
   * 7.5e1}, {@code true}): for routes that match the value's text whatever its type, as Iceberg's
   * Kafka Connect sink does. Null for a null, an object or an array.
   */
  public String readScalar(ByteBuffer message) {
    return read(message, true);
  }

  private String read(ByteBuffer message, boolean scalars) {
    if (message.hasArray()) {
      int from = message.arrayOffset() + message.position();
      return read(message.array(), from, from + message.remaining(), scalars);
    }
    byte[] copy = new byte[message.remaining()]; // a direct or read-only buffer: rare
    message.get(message.position(), copy);
    return read(copy, 0, copy.length, scalars);
  }

  private String read(byte[] json, int from, int end, boolean scalars) {
    int i = skipSpace(json, from, end);
    if (i >= end || json[i] != '{') {
      return null;
    }
    i++;
    while (true) {
      i = skipSpace(json, i, end);
      if (i >= end || json[i] != '"') {
        return null;
      }
      int keyStart = i + 1;
      int keyEnd = endOfString(json, keyStart, end);
      if (keyEnd < 0) {
        return null;
      }
      i = skipSpace(json, keyEnd + 1, end);
      if (i >= end || json[i] != ':') {
        return null;
      }
      i = skipSpace(json, i + 1, end);
      if (i >= end) {
        return null;
      }
      if (isName(json, keyStart, keyEnd)) {
        if (json[i] == '"') {
          return stringAt(json, i, end);
        }
        return scalars ? literalAt(json, i, end) : null;
      }
      i = skipValue(json, i, end);
      if (i < 0) {
        return null;
      }
      i = skipSpace(json, i, end);
      if (i >= end || json[i] != ',') {
        return null;
      }
      i++;
    }
  }

  private boolean isName(byte[] json, int start, int end) {
    for (int k = start; k < end; k++) {
      if (json[k] == '\\') {
        try {
          return decode(json, start, end).equals(nameText());
        } catch (MalformedValueException e) {
          return false; // another key, and not ours to judge
        }
      }
    }
    if (end - start != name.length) {
      return false;
    }
    for (int k = 0; k < name.length; k++) {
      if (json[start + k] != name[k]) {
        return false;
      }
    }
    return true;
  }

  private static int skipSpace(byte[] json, int i, int end) {
    while (i < end && (json[i] == ' ' || json[i] == '\t' || json[i] == '\n' || json[i] == '\r')) {
      i++;
    }
    return i;
  }

  /** Index of the closing quote of the string whose content starts at {@code i}, or -1. */
  private static int endOfString(byte[] json, int i, int end) {
    while (i < end) {
      if (json[i] == '\\') {
        i += 2;
      } else if (json[i] == '"') {
        return i;
      } else {
        i++;
      }
    }
    return -1;
  }

  /** Index just past the value starting at {@code i}, or -1. */
  private static int skipValue(byte[] json, int i, int end) {
    if (json[i] == '"') {
      int close = endOfString(json, i + 1, end);
      return close < 0 ? -1 : close + 1;
    }
    int depth = 0;
    while (i < end) {
      byte b = json[i];
      if (b == '"') {
        int close = endOfString(json, i + 1, end);
        if (close < 0) {
          return -1;
        }
        i = close + 1;
        continue;
      }
      if (b == '{' || b == '[') {
        depth++;
      } else if (b == '}' || b == ']') {
        if (depth == 0) {
          return i;
        }
        depth--;
      } else if (b == ',' && depth == 0) {
        return i;
      }
      i++;
      if (depth == 0 && (b == '}' || b == ']')) {
        return i;
      }
    }
    return -1;
  }

  /** The text of the number or {@code true}/{@code false} at {@code i}; null for anything else. */
  private static String literalAt(byte[] json, int i, int end) {
    int stop = i;
    while (stop < end && (json[stop] == '-' || json[stop] == '+' || json[stop] == '.'
        || Character.isLetterOrDigit(json[stop]))) {
      stop++;
    }
    String text = new String(json, i, stop - i, StandardCharsets.US_ASCII);
    if (text.equals("true") || text.equals("false") || (!text.isEmpty() && (text.charAt(0) == '-'
        || Character.isDigit(text.charAt(0))))) {
      return text;
    }
    return null; // null, or not JSON
  }

  /** The decoded content of the string whose opening quote is at {@code quote}. */
  private String stringAt(byte[] json, int quote, int end) {
    int close = endOfString(json, quote + 1, end);
    if (close < 0) {
      throw new MalformedValueException("the value of '" + nameText() + "' is an unterminated string");
    }
    return decode(json, quote + 1, close);
  }

  /** JSON string content between {@code from} and {@code to}, escapes decoded; strict about them. */
  private String decode(byte[] json, int from, int to) {
    String raw = new String(json, from, to - from, StandardCharsets.UTF_8);
    if (raw.indexOf('\\') < 0) {
      return raw;
    }
    StringBuilder out = new StringBuilder(raw.length());
    for (int k = 0; k < raw.length(); k++) {
      char c = raw.charAt(k);
      if (c != '\\') {
        out.append(c);
        continue;
      }
      if (k + 1 >= raw.length()) {
        throw badEscape(raw, k);
      }
      char e = raw.charAt(++k);
      switch (e) {
        case '"', '\\', '/' -> out.append(e);
        case 'n' -> out.append('\n');
        case 't' -> out.append('\t');
        case 'r' -> out.append('\r');
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'u' -> {
          if (k + 4 >= raw.length()) {
            throw badEscape(raw, k - 1);
          }
          int code = 0;
          for (int h = 1; h <= 4; h++) {
            int digit = Character.digit(raw.charAt(k + h), 16);
            if (digit < 0) {
              throw badEscape(raw, k - 1);
            }
            code = code << 4 | digit;
          }
          out.append((char) code);
          k += 4;
        }
        default -> throw badEscape(raw, k - 1);
      }
    }
    return out.toString();
  }

  private MalformedValueException badEscape(String raw, int at) {
    String escape = raw.substring(at, Math.min(raw.length(), at + 6));
    return new MalformedValueException("the value of '" + nameText() + "' has an invalid escape '" + escape + "'");
  }

  private String nameText() {
    return new String(name, StandardCharsets.UTF_8);
  }

  /** The route field is there but its value is not valid JSON: a bad record, not a crash. */
  public static final class MalformedValueException extends IllegalArgumentException {
    MalformedValueException(String message) {
      super(message);
    }
  }
}
