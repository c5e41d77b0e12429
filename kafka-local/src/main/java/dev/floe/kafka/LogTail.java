package dev.floe.kafka;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** The last lines of a log file, for error messages. */
final class LogTail {
  private static final int MAX_BYTES = 64 * 1024;

  private LogTail() {}

  static String of(Path file, int lines) {
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      long length = in.length();
      int size = (int) Math.min(length, MAX_BYTES);
      byte[] bytes = new byte[size];
      in.seek(length - size);
      in.readFully(bytes);
      List<String> all = Arrays.asList(new String(bytes, StandardCharsets.UTF_8).split("\n"));
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no broker log at " + file + ": " + e.getMessage() + ")";
    }
  }
}
