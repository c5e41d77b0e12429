package dev.floe.connect;

/** The connector's version: the floe release it belongs to (from the jar's manifest when packaged). */
final class Version {
  static final String VERSION = version();

  private Version() {}

  private static String version() {
    String fromJar = Version.class.getPackage().getImplementationVersion();
    return fromJar != null ? fromJar : "0.1.0-SNAPSHOT";
  }
}
