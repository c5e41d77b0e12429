package dev.floe.iceberg.sink;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Reads one top-level string field of a JSON object message without parsing the whole message:
 * what a route field needs per record. Finds {@code "name":} at depth one (skipping nested values
 * and strings) and returns the string value, or null when the field is absent, not a string, or
 * the message is not an object. Escapes in the value are decoded for the common cases.
 *
 * <p>Scans a heap buffer's bytes in place: the message is not copied.
 */
final class RouteField {
  private final byte[] name;

  RouteField(String name) {
    this.name = name.getBytes(StandardCharsets.UTF_8);
  }

  /** Reads the message between the buffer's position and limit; the buffer is left as it was. */
  String read(ByteBuffer message) {
    if (message.hasArray()) {
      int from = message.arrayOffset() + message.position();
      return read(message.array(), from, from + message.remaining());
    }
    byte[] copy = new byte[message.remaining()]; // a direct or read-only buffer: rare
    message.get(message.position(), copy);
    return read(copy, 0, copy.length);
  }

  private String read(byte[] json, int from, int end) {
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
        return json[i] == '"' ? stringAt(json, i, end) : null;
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

  private static String stringAt(byte[] json, int quote, int end) {
    int close = endOfString(json, quote + 1, end);
    if (close < 0) {
      return null;
    }
    String raw = new String(json, quote + 1, close - quote - 1, StandardCharsets.UTF_8);
    if (raw.indexOf('\\') < 0) {
      return raw;
    }
    StringBuilder out = new StringBuilder(raw.length());
    for (int k = 0; k < raw.length(); k++) {
      char c = raw.charAt(k);
      if (c != '\\' || k + 1 >= raw.length()) {
        out.append(c);
        continue;
      }
      char e = raw.charAt(++k);
      switch (e) {
        case 'n' -> out.append('\n');
        case 't' -> out.append('\t');
        case 'r' -> out.append('\r');
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'u' -> {
          if (k + 4 < raw.length()) {
            out.append((char) Integer.parseInt(raw.substring(k + 1, k + 5), 16));
            k += 4;
          }
        }
        default -> out.append(e);
      }
    }
    return out.toString();
  }
}
