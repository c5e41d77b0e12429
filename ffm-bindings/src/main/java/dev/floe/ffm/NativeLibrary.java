package dev.floe.ffm;

import dev.floe.ffm.internal.floe_h;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Comparator;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Loads libfloe once per JVM and checks its ABI version.
 *
 * <p>Where the library comes from, in order:
 *
 * <ol>
 *   <li>the path in system property {@value #LIBRARY_PATH_PROPERTY}, if set (for development
 *       against a fresh {@code cargo build});
 *   <li>otherwise the copy packaged in this jar under {@code native/<platform>/}, extracted to
 *       {@code <java.io.tmpdir>/floe-native-<user>/<content hash>/}, a folder only its owner may
 *       enter: in a temp folder every user can write to, a library found at a shared path could be
 *       anyone's. A folder of that name that another user owns, or others may write into, is not
 *       used (a new private one is made for this JVM, and deleted once the library is loaded). Two JVMs starting at once are safe: each
 *       writes a private temp file and atomically renames it; an existing copy is reused only if
 *       its content is the packaged library's. Copies of other versions older than a day are
 *       deleted.
 * </ol>
 *
 * <p>The generated bindings look symbols up in the libraries loaded by this class loader, so
 * {@link #load()} must run before the first downcall; the facade in arrow-bridge calls it. A failed
 * load is remembered and rethrown, with its reason, on every later call.
 */
public final class NativeLibrary {
  /** System property naming an explicit libfloe path. */
  public static final String LIBRARY_PATH_PROPERTY = "floe.native.library";

  /** The ABI version these bindings were generated for. */
  public static final int EXPECTED_ABI_VERSION = floe_h.FLOE_ABI_VERSION();

  private static final String LIBRARY_FILE = System.mapLibraryName("floe");
  private static final Duration STALE_AFTER = Duration.ofDays(1);

  private static final Object LOCK = new Object();
  private static volatile boolean loaded;
  private static Throwable failure;

  private NativeLibrary() {}

  /**
   * Loads and checks libfloe if that has not happened yet.
   *
   * @throws NativeLibraryLoadException if the library cannot be found, loaded, or has another ABI
   *     version; the same failure is rethrown on every later call
   */
  public static void load() {
    if (loaded) {
      return;
    }
    synchronized (LOCK) {
      if (loaded) {
        return;
      }
      if (failure != null) {
        throw new NativeLibraryLoadException(
            "libfloe failed to load earlier in this JVM: " + failure.getMessage(), failure);
      }
      try {
        Path library = locate();
        System.load(library.toString());
        forgetFallbackCopy(); // loaded: the mapping stays, the file may go
        checkAbiVersion(library);
        loaded = true;
      } catch (Throwable t) {
        failure = t;
        throw t instanceof NativeLibraryLoadException e
            ? e
            : new NativeLibraryLoadException("cannot load libfloe: " + t, t);
      }
    }
  }

  /** The platform folder inside the jar, e.g. {@code linux-x86_64}. */
  public static String platform() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    String osName = os.contains("linux") ? "linux" : os.contains("mac") ? "macos" : os;
    String archName =
        switch (arch) {
          case "amd64", "x86_64" -> "x86_64";
          case "aarch64", "arm64" -> "aarch64";
          default -> arch;
        };
    return osName + "-" + archName;
  }

  private static Path locate() throws IOException {
    String explicit = System.getProperty(LIBRARY_PATH_PROPERTY);
    if (explicit != null && !explicit.isBlank()) {
      Path path = Path.of(explicit).toAbsolutePath();
      if (!Files.isRegularFile(path)) {
        throw new NativeLibraryLoadException(
            LIBRARY_PATH_PROPERTY + " points to " + path + ", which is not a file");
      }
      return path;
    }
    String resource = "/native/" + platform() + "/" + LIBRARY_FILE;
    byte[] bytes;
    try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new NativeLibraryLoadException(
            "no libfloe for platform "
                + platform()
                + " in the floe-ffm-bindings jar (looked for "
                + resource
                + "); build it with `mvn package` or set -D"
                + LIBRARY_PATH_PROPERTY
                + "=/path/to/"
                + LIBRARY_FILE);
      }
      bytes = in.readAllBytes();
    }
    return extract(bytes);
  }

  private static Path extract(byte[] bytes) throws IOException {
    return extract(bytes, privateRoot(Path.of(System.getProperty("java.io.tmpdir"))));
  }

  /**
   * Writes the library under a content-addressed folder of {@code root}, atomically, and reuses a
   * copy already there only if it holds exactly these bytes.
   */
  static Path extract(byte[] bytes, Path root) throws IOException {
    String sha = sha256(bytes);
    Path dir = root.resolve(sha.substring(0, 16));
    Path target = dir.resolve(LIBRARY_FILE);
    Files.createDirectories(dir);
    if (!Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) || Files.size(target) != bytes.length
        || !sha.equals(sha256(Files.readAllBytes(target)))) {
      Path temp = Files.createTempFile(dir, LIBRARY_FILE, ".tmp");
      try {
        Files.write(temp, bytes);
        moveAtomically(temp, target);
      } finally {
        Files.deleteIfExists(temp);
      }
    }
    touch(dir);
    deleteStaleCopies(root, dir);
    return target;
  }

  /**
   * This user's folder for extracted copies under {@code tmp}: {@code floe-native-<user>}, made
   * with owner-only permissions. One that exists but is not this user's, is a link, or lets others
   * write is not trusted, and a new private folder is made instead (for this JVM only).
   */
  static Path privateRoot(Path tmp) throws IOException {
    String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
    Path root = tmp.resolve("floe-native-" + user);
    if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.createDirectories(root);
      return root;
    }
    FileAttribute<Set<PosixFilePermission>> ownerOnly =
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
    try {
      Files.createDirectory(root, ownerOnly);
    } catch (FileAlreadyExistsException exists) {
      // checked below, as any folder found there
    }
    if (ownedByThisUserAlone(root, tmp)) {
      return root;
    }
    Path fresh = Files.createTempDirectory(tmp, "floe-native-", ownerOnly);
    fallbackRoot = fresh;
    return fresh;
  }

  /**
   * A folder made for this JVM alone because the user's was not trusted; deleted once the library
   * is loaded (helper-62: each JVM left a copy behind), null otherwise.
   */
  private static Path fallbackRoot;

  /** Deletes the fallback folder and its copy, best effort (a loaded library's file may be unlinked). */
  private static void forgetFallbackCopy() {
    Path root = fallbackRoot;
    fallbackRoot = null;
    if (root == null) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | UncheckedIOException ignored) {
      // a copy left in the temp folder
    }
  }

  /** Whether {@code dir} is a real folder of this JVM's user that no one else may write into. */
  private static boolean ownedByThisUserAlone(Path dir, Path tmp) throws IOException {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    PosixFileAttributes attributes = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    Set<PosixFilePermission> permissions = attributes.permissions();
    return attributes.owner().equals(thisUser(tmp))
        && !permissions.contains(PosixFilePermission.GROUP_WRITE)
        && !permissions.contains(PosixFilePermission.OTHERS_WRITE);
  }

  /**
   * This JVM's user: looked up by name, or, where that fails (a uid without a passwd entry in a
   * container), as the owner of a file made to learn it.
   */
  private static UserPrincipal thisUser(Path tmp) throws IOException {
    try {
      return FileSystems.getDefault().getUserPrincipalLookupService()
          .lookupPrincipalByName(System.getProperty("user.name"));
    } catch (IOException | UnsupportedOperationException notFound) {
      // below
    }
    Path probe = Files.createTempFile(tmp, "floe-owner", ".tmp");
    try {
      return Files.getOwner(probe);
    } finally {
      Files.deleteIfExists(probe);
    }
  }

  private static void moveAtomically(Path temp, Path target) throws IOException {
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException | FileAlreadyExistsException e) {
      // Another JVM won the race with identical content; its copy is as good as ours.
      if (!Files.isRegularFile(target)) {
        throw e;
      }
    }
  }

  private static void touch(Path dir) {
    try {
      Files.setLastModifiedTime(dir, FileTime.from(Instant.now()));
    } catch (IOException ignored) {
      // Only affects stale-copy cleanup.
    }
  }

  /** Best effort: another JVM may still map an old copy, which Linux allows us to unlink. */
  private static void deleteStaleCopies(Path root, Path current) {
    Instant cutoff = Instant.now().minus(STALE_AFTER);
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root)) {
      for (Path dir : dirs) {
        if (!dir.equals(current)
            && Files.isDirectory(dir)
            && Files.getLastModifiedTime(dir).toInstant().isBefore(cutoff)) {
          try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
              Files.deleteIfExists(f);
            }
          }
          Files.deleteIfExists(dir);
        }
      }
    } catch (IOException | UncheckedIOException ignored) {
      // Cleanup must never fail a load.
    }
  }

  private static void checkAbiVersion(Path library) {
    int actual = floe_h.floe_abi_version();
    if (actual != EXPECTED_ABI_VERSION) {
      throw new NativeLibraryLoadException(
          "libfloe at "
              + library
              + " has ABI version "
              + actual
              + " but these bindings need "
              + EXPECTED_ABI_VERSION
              + "; rebuild floe so the library and jars match");
    }
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always available", e);
    }
  }
}
