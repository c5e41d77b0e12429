package dev.floe.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.ffm.internal.floe_h;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLibraryTest {
  @TempDir Path tmp;

  @Test
  void loadsThePackagedLibraryAndChecksItsAbiVersion() {
    NativeLibrary.load();
    NativeLibrary.load(); // idempotent
    assertEquals(NativeLibrary.EXPECTED_ABI_VERSION, floe_h.floe_abi_version());
    assertEquals("linux-x86_64", NativeLibrary.platform());
  }

  @Test
  void jvmsStartingAtOnceShareOneExtractedCopyAndStaleCopiesGo() throws Exception {
    Path root = tmp.resolve("floe-native-" + System.getProperty("user.name"));
    Path stale = root.resolve("0000000000000000");
    Files.createDirectories(stale);
    Files.writeString(stale.resolve("libfloe.so"), "old");
    Files.setLastModifiedTime(stale, FileTime.from(Instant.now().minus(Duration.ofDays(3))));

    List<Process> jvms = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      jvms.add(probe("-Djava.io.tmpdir=" + tmp));
    }
    for (Process jvm : jvms) {
      String out = output(jvm);
      assertTrue(out.contains("attempt 1: loaded abi=" + NativeLibrary.EXPECTED_ABI_VERSION), out);
    }
    try (Stream<Path> dirs = Files.list(root)) {
      List<Path> copies = dirs.toList();
      assertEquals(1, copies.size(), "one content-addressed copy: " + copies);
      try (Stream<Path> files = Files.list(copies.getFirst())) {
        assertEquals(List.of("libfloe.so"), files.map(p -> p.getFileName().toString()).toList());
      }
    }
    assertFalse(Files.exists(stale), "a copy untouched for days is cleaned up");
  }

  /** A file of the library's name and size that is not the library (planted, or half written) is replaced. */
  @Test
  void aCopyWhoseContentDiffersIsReplaced() throws Exception {
    byte[] library = "the packaged library's bytes".getBytes(StandardCharsets.UTF_8);
    Path first = NativeLibrary.extract(library, tmp);
    byte[] planted = library.clone();
    planted[0] ^= 1; // the same size
    Files.write(first, planted);
    Path second = NativeLibrary.extract(library, tmp);
    assertEquals(first, second);
    assertEquals(new String(library, StandardCharsets.UTF_8), Files.readString(second), "the packaged bytes again");
  }

  /** A user's folder that others may write into (or another user made) is not used: a new private one is. */
  @Test
  void aFolderOthersMayWriteIntoIsNotTrusted() throws Exception {
    Path own = NativeLibrary.privateRoot(tmp);
    assertEquals(tmp.resolve("floe-native-" + System.getProperty("user.name")), own);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(own)), "made for its owner only");
    assertEquals(own, NativeLibrary.privateRoot(tmp), "the same folder next time");

    Files.setPosixFilePermissions(own, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path instead = NativeLibrary.privateRoot(tmp);
    assertNotEquals(own, instead, "a world-writable folder is not used");
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(instead)));
  }

  /**
   * JVMs that do not trust the user's folder load from a folder of their own and delete it once
   * loaded (helper-62: each left a full copy of the library in the temp folder).
   */
  @Test
  void jvmsThatDoNotTrustTheUsersFolderLeaveNoCopyBehind() throws Exception {
    Path distrusted = tmp.resolve("floe-native-" + System.getProperty("user.name"));
    Files.createDirectory(distrusted);
    Files.setPosixFilePermissions(distrusted, PosixFilePermissions.fromString("rwxrwxrwx"));
    for (int i = 0; i < 2; i++) {
      String out = output(probe("-Djava.io.tmpdir=" + tmp));
      assertTrue(out.contains("attempt 1: loaded abi=" + NativeLibrary.EXPECTED_ABI_VERSION), out);
    }
    try (Stream<Path> entries = Files.list(tmp)) {
      assertEquals(List.of(distrusted), entries.toList(), "nothing left but the folder that was not used");
    }
    try (Stream<Path> inside = Files.list(distrusted)) {
      assertEquals(List.of(), inside.toList(), "and nothing written into it");
    }
  }

  @Test
  void aFailedLoadIsRememberedAndRethrownWithItsReason() throws Exception {
    Path missing = tmp.resolve("nope/libfloe.so");
    String out = output(probe("-D" + NativeLibrary.LIBRARY_PATH_PROPERTY + "=" + missing));
    assertTrue(out.contains("attempt 1: failed: ") && out.contains(missing.toString()), out);
    assertTrue(out.contains("attempt 2: failed: libfloe failed to load earlier"), out);
    assertTrue(out.lines().filter(l -> l.contains(missing.toString())).count() == 2, out);
  }

  @Test
  void aFileThatIsNotALibraryFailsClearly() throws Exception {
    Path bogus = tmp.resolve("libfloe.so");
    Files.writeString(bogus, "not an ELF file");
    String out = output(probe("-D" + NativeLibrary.LIBRARY_PATH_PROPERTY + "=" + bogus));
    assertTrue(out.contains("attempt 1: failed: cannot load libfloe"), out);
    assertTrue(out.contains("attempt 2: failed: libfloe failed to load earlier"), out);
  }

  private static Process probe(String property) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(
            java,
            "--enable-native-access=ALL-UNNAMED",
            property,
            "-cp",
            System.getProperty("java.class.path"),
            LoaderProbe.class.getName())
        .redirectErrorStream(true)
        .start();
  }

  private static String output(Process p) throws Exception {
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe JVM finished");
    assertEquals(0, p.exitValue(), out);
    return out;
  }
}
