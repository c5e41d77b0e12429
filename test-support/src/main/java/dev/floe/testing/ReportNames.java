package dev.floe.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;

/**
 * Default names of benchmark reports: the day and the benchmark, and a number after them when a
 * report of that name is already in the directory, so a second run on one day keeps the first's.
 */
public final class ReportNames {
  private ReportNames() {}

  /** {@code <today, UTC>-<benchmark>}, or {@code ...-2}, {@code -3}, ... if {@code dir} holds that report. */
  public static String today(Path dir, String benchmark) {
    String name = LocalDate.now(ZoneOffset.UTC) + "-" + benchmark;
    String free = name;
    for (int n = 2; Files.exists(dir.resolve(free + ".md")) || Files.exists(dir.resolve(free + ".json")); n++) {
      free = name + "-" + n;
    }
    return free;
  }
}
