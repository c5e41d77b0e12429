package dev.floe.bench.e2e;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a JVM the driver starts on its own classpath (the memory child, a contender
 * in its own JVM): this JDK's java, the flags every floe JVM needs, a heap cap, the caller's flags
 * and the main class. The caller appends the main class's arguments.
 */
final class ChildJvm {
  private ChildJvm() {}

  /** The flags every floe JVM needs (FFM downcalls, Arrow's C Data export). */
  static List<String> floeJvmFlags() {
    List<String> flags = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED"));
    if (Runtime.version().feature() >= 24) {
      flags.add("--sun-misc-unsafe-memory-access=allow");
    }
    return flags;
  }

  static List<String> command(String heap, List<String> flags, Class<?> main) {
    return command(heap, flags, System.getProperty("java.class.path"), main);
  }

  /** The same on another classpath (e.g. an e2e-bench jar another commit built). */
  static List<String> command(String heap, List<String> flags, String classpath, Class<?> main) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(floeJvmFlags());
    command.add("-Xmx" + heap);
    command.addAll(flags);
    command.add("-cp");
    command.add(classpath);
    command.add(main.getName());
    return command;
  }
}
