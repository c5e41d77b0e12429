package dev.floe.flink.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/** A benchmark driver's {@code --name value} arguments. */
final class BenchOptions {
  private BenchOptions() {}

  static Map<String, String> parse(String[] args, String usage) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 == args.length) {
        throw new IllegalArgumentException("usage: " + usage);
      }
      out.put(args[i].substring(2), args[++i]);
    }
    return out;
  }
}
