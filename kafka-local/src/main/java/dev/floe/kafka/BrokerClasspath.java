package dev.floe.kafka;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The broker JVM's classpath: exactly the runtime dependencies of {@code kafka_2.13}, resolved by
 * this module's build (maven-dependency-plugin {@code build-classpath}) into the resource {@value
 * #RESOURCE} of the module jar. The broker jars are an optional dependency, so they are not on
 * the caller's classpath; this file is how the caller finds them.
 */
final class BrokerClasspath {
  static final String RESOURCE = "broker.classpath";

  private BrokerClasspath() {}

  /**
   * Reads and checks the packaged classpath.
   *
   * @throws IllegalStateException when the resource is missing or names a jar that no longer
   *     exists (the local Maven repository changed since the module was built)
   */
  static String load() {
    return load(RESOURCE);
  }

  static String load(String resource) {
    String text;
    try (InputStream in = BrokerClasspath.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "floe-kafka-local has no broker classpath (resource dev/floe/kafka/" + resource
                + "); it is written when the module is built: run "
                + "'mvn -Dfloe.skipCargo=true -DskipTests install -pl kafka-local -am'");
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the broker classpath resource " + resource, e);
    }
    if (text.isEmpty()) {
      throw new IllegalStateException("the broker classpath resource " + resource + " is empty");
    }
    List<String> missing = new ArrayList<>();
    List<String> entries = List.of(text.split(File.pathSeparator));
    for (String entry : entries) {
      if (!Files.exists(Path.of(entry))) {
        missing.add(entry);
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "the broker classpath of floe-kafka-local names jars that do not exist: " + missing
              + " (the local Maven repository changed since the module was built); rebuild it: "
              + "'mvn -Dfloe.skipCargo=true -DskipTests install -pl kafka-local -am'");
    }
    return text;
  }
}
