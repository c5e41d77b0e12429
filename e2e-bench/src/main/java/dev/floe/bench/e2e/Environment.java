package dev.floe.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The machine and JVM a run measured on, for the report (Linux facts from /proc where there). */
final class Environment {
  private Environment() {}

  static Map<String, Object> describe() {
    Map<String, Object> env = new LinkedHashMap<>();
    env.put("javaVersion", System.getProperty("java.version"));
    env.put("javaVm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
    env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
        + System.getProperty("os.arch"));
    env.put("cpus", Runtime.getRuntime().availableProcessors());
    env.put("cpuModel", firstValue(Path.of("/proc/cpuinfo"), "model name"));
    env.put("memTotal", gib(firstValue(Path.of("/proc/meminfo"), "MemTotal")));
    env.put("driverMaxHeapMiB", Runtime.getRuntime().maxMemory() >> 20);
    env.put("loadAverageAtStart", loadAverage());
    return env;
  }

  /** The 1, 5 and 15 minute load averages, as /proc/loadavg gives them; "" if unavailable. */
  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  /** "24684092 kB" -> "23.5 GiB". */
  private static String gib(String meminfo) {
    try {
      return String.format(java.util.Locale.ROOT, "%.1f GiB", Long.parseLong(meminfo.split("\\s+")[0]) / 1048576.0);
    } catch (RuntimeException e) {
      return meminfo;
    }
  }

  private static String firstValue(Path file, String key) {
    try {
      List<String> lines = Files.readAllLines(file);
      for (String line : lines) {
        if (line.startsWith(key)) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: leave it out
    }
    return "";
  }
}
