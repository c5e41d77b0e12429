package dev.floe.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a JVM's unified GC log ({@code -Xlog:gc:file=...}) says about its heap: each collection
 * logs "before->after(committed)". The heap in use just before a collection is where it peaks, so
 * the largest "before" is the peak heap; the largest "committed" is how much heap the JVM had
 * taken from the OS (part of its RSS).
 *
 * @param collections the number of collections logged
 * @param peakBeforeGcBytes the largest heap occupancy before a collection
 * @param maxCommittedBytes the largest committed heap
 */
record GcLog(long collections, long peakBeforeGcBytes, long maxCommittedBytes) {
  /** "... Pause Young (Normal) (G1 Evacuation Pause) 120M->30M(512M) 5.1ms". */
  private static final Pattern TRANSITION = Pattern.compile("(\\d+)([KMG])->(\\d+)([KMG])\\((\\d+)([KMG])\\)");

  /** The log's figures; all zero if it does not exist or logs no collection. */
  static GcLog read(Path log) throws IOException {
    if (!Files.exists(log)) {
      return new GcLog(0, 0, 0);
    }
    long collections = 0;
    long peak = 0;
    long committed = 0;
    for (String line : Files.readAllLines(log)) {
      Matcher m = TRANSITION.matcher(line);
      if (m.find()) {
        collections++;
        peak = Math.max(peak, bytes(m.group(1), m.group(2)));
        committed = Math.max(committed, bytes(m.group(5), m.group(6)));
      }
    }
    return new GcLog(collections, peak, committed);
  }

  private static long bytes(String number, String unit) {
    long n = Long.parseLong(number);
    return switch (unit) {
      case "K" -> n << 10;
      case "M" -> n << 20;
      default -> n << 30;
    };
  }
}
