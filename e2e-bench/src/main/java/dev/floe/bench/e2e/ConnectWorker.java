package dev.floe.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A standalone Kafka Connect worker ({@code ConnectStandalone}) in its own JVM, on loopback, with
 * its REST API for submitting connectors and remote JMX for reading its task metrics. Its
 * classpath is the file the module {@code e2e-bench/connect-worker} writes at build time (Connect
 * and the Iceberg sink never touch the driver's classpath).
 *
 * <p>Lifecycle: {@link #start} launches the worker and returns once its REST API answers; the
 * instance owns the process, {@link #close} stops it (SIGTERM, then SIGKILL after 20 s). The work
 * folder keeps {@code worker.properties}, {@code log4j2.properties}, {@code connect.log} and the
 * worker's offset file.
 */
final class ConnectWorker implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private final Process process;
  private final Path dir;
  private final URI rest;
  private final int jmxPort;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private JMXConnector jmx;

  private ConnectWorker(Process process, Path dir, URI rest, int jmxPort) {
    this.process = process;
    this.dir = dir;
    this.rest = rest;
    this.jmxPort = jmxPort;
  }

  /**
   * Launches a worker against {@code bootstrapServers}, with JSON values without schemas (the
   * corpora are plain JSON), from the classpath listed in {@code classpathFile}.
   */
  static ConnectWorker start(Path dir, Path classpathFile, String bootstrapServers, List<String> jvmOptions)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    String classpath = readClasspath(classpathFile);
    int restPort = FreePorts.pick();
    int jmxPort = FreePorts.pick();
    Path workerProperties = dir.resolve("worker.properties");
    Files.writeString(workerProperties, String.join("\n",
        "bootstrap.servers=" + bootstrapServers,
        "key.converter=org.apache.kafka.connect.converters.ByteArrayConverter",
        "value.converter=org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable=false",
        "offset.storage.file.filename=" + dir.resolve("connect.offsets"),
        "offset.flush.interval.ms=10000",
        "listeners=http://127.0.0.1:" + restPort,
        // The connector is on the classpath, not in a plugin folder.
        "plugin.discovery=only_scan",
        ""), StandardCharsets.UTF_8);
    Path log4j = dir.resolve("log4j2.properties");
    Files.writeString(log4j, String.join("\n",
        "rootLogger.level=INFO",
        "rootLogger.appenderRef.out.ref=out",
        "appender.out.type=Console",
        "appender.out.name=out",
        "appender.out.layout.type=PatternLayout",
        "appender.out.layout.pattern=[%d] %p %m (%c)%n",
        "logger.reflections.name=org.reflections",
        "logger.reflections.level=ERROR",
        ""), StandardCharsets.UTF_8);

    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    if (Runtime.version().feature() >= 24) {
      command.add("--sun-misc-unsafe-memory-access=allow");
    }
    command.add("-Djava.awt.headless=true");
    command.add("-Dlog4j2.configurationFile=" + log4j);
    command.add("-Dcom.sun.management.jmxremote.port=" + jmxPort);
    command.add("-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort);
    command.add("-Dcom.sun.management.jmxremote.host=127.0.0.1");
    command.add("-Djava.rmi.server.hostname=127.0.0.1");
    command.add("-Dcom.sun.management.jmxremote.authenticate=false");
    command.add("-Dcom.sun.management.jmxremote.ssl=false");
    command.add("-cp");
    command.add(classpath);
    command.add("org.apache.kafka.connect.cli.ConnectStandalone");
    // Iceberg's sink reads the worker's Kafka settings from this argument (sun.java.command).
    command.add(workerProperties.toString());
    Process process = new ProcessBuilder(command)
        .directory(dir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("connect.log").toFile()))
        .start();
    process.getOutputStream().close();
    ConnectWorker worker = new ConnectWorker(process, dir, URI.create("http://127.0.0.1:" + restPort), jmxPort);
    try {
      worker.awaitRest();
      return worker;
    } catch (IOException | InterruptedException | RuntimeException e) {
      worker.close();
      throw e;
    }
  }

  private static String readClasspath(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IllegalStateException("no Kafka Connect classpath file " + file + "; the build writes it: "
          + "'mvn install -pl e2e-bench -am' (scripts/bench-e2e does)");
    }
    String text = Files.readString(file, StandardCharsets.UTF_8).strip();
    for (String entry : text.split(File.pathSeparator)) {
      if (!Files.exists(Path.of(entry))) {
        throw new IllegalStateException("the Kafka Connect classpath names a missing jar " + entry
            + "; write it again with 'mvn install -pl e2e-bench/connect-worker'");
      }
    }
    return text;
  }

  private void awaitRest() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the Connect worker exited with code " + process.exitValue()
            + " while starting; see " + log());
      }
      try {
        HttpResponse<String> r = http.send(request("/").GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the Connect worker's REST API did not answer within " + START_TIMEOUT
            + "; see " + log());
      }
      Thread.sleep(200);
    }
  }

  Path log() {
    return dir.resolve("connect.log");
  }

  /** Submits a connector; Connect starts its tasks at once. */
  void createConnector(String name, Map<String, String> config) throws IOException, InterruptedException {
    String body = JSON.writeValueAsString(Map.of("name", name, "config", config));
    HttpResponse<String> r = http.send(
        request("/connectors").header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) {
      throw new IllegalStateException("creating connector " + name + " failed: HTTP " + r.statusCode() + " " + r.body());
    }
  }

  /** Stops and removes a connector (its tasks stop; committed data stays). */
  void deleteConnector(String name) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(request("/connectors/" + name).DELETE().build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 204 && r.statusCode() != 404) {
      throw new IllegalStateException("deleting connector " + name + " failed: HTTP " + r.statusCode() + " " + r.body());
    }
  }

  /**
   * The trace of a failed connector or task, or null while they run (or have not started yet).
   */
  String failure(String name) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(request("/connectors/" + name + "/status").GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      return null;
    }
    JsonNode status = JSON.readTree(r.body());
    if ("FAILED".equals(status.path("connector").path("state").asText())) {
      return status.path("connector").path("trace").asText("connector failed");
    }
    for (JsonNode task : status.path("tasks")) {
      if ("FAILED".equals(task.path("state").asText())) {
        return task.path("trace").asText("task failed");
      }
    }
    return null;
  }

  /**
   * Records the connector's tasks have finished {@code put()} for (Connect's {@code
   * sink-record-send-total}, counted after each put returns), summed over its tasks; 0 before
   * they exist.
   */
  long recordsPut(String connector) throws IOException {
    MBeanServerConnection server = jmx().getMBeanServerConnection();
    try {
      Set<ObjectName> names = server.queryNames(
          new ObjectName("kafka.connect:type=sink-task-metrics,connector=" + connector + ",*"), null);
      double sum = 0;
      for (ObjectName name : names) {
        Object value = server.getAttribute(name, "sink-record-send-total");
        if (value instanceof Number n) {
          sum += n.doubleValue();
        }
      }
      return (long) sum;
    } catch (javax.management.JMException e) {
      throw new IOException("reading the Connect task metrics over JMX failed", e);
    }
  }

  private JMXConnector jmx() throws IOException {
    if (jmx == null) {
      jmx = JMXConnectorFactory.connect(
          new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi"));
    }
    return jmx;
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(rest.resolve(path)).timeout(Duration.ofSeconds(30));
  }

  boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    if (jmx != null) {
      try {
        jmx.close();
      } catch (IOException ignored) {
        // the worker is going away anyway
      }
      jmx = null;
    }
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(20, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
