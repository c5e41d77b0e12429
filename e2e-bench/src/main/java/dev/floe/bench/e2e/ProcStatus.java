package dev.floe.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * A process's resident memory from Linux's {@code /proc/<pid>/status}: {@code VmRSS} (now) and
 * {@code VmHWM} (the peak so far), in KiB.
 */
record ProcStatus(long rssKib, long peakRssKib) {
  /** The process's status, or empty once it has exited (or off Linux). */
  static java.util.Optional<ProcStatus> of(long pid) {
    try {
      OptionalLong rss = OptionalLong.empty();
      OptionalLong hwm = OptionalLong.empty();
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = OptionalLong.of(kib(line));
        } else if (line.startsWith("VmHWM:")) {
          hwm = OptionalLong.of(kib(line));
        }
      }
      if (rss.isEmpty() || hwm.isEmpty()) {
        return java.util.Optional.empty(); // a zombie has no memory lines
      }
      return java.util.Optional.of(new ProcStatus(rss.getAsLong(), hwm.getAsLong()));
    } catch (IOException | RuntimeException e) {
      return java.util.Optional.empty();
    }
  }

  /** "VmRSS:	  123456 kB" -> 123456. */
  private static long kib(String line) {
    String[] parts = line.substring(line.indexOf(':') + 1).trim().split("\\s+");
    return Long.parseLong(parts[0]);
  }
}
