package dev.floe.kafka;

import dev.floe.corpus.JsonStrings;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A real Kafka Connect worker in a JVM of its own, on loopback: standalone ({@code
 * ConnectStandalone}) or one member of a distributed cluster ({@code ConnectDistributed}), with its
 * REST API for connectors and remote JMX for its metrics. Its classpath is a file listing Connect's
 * jars (the build of {@code e2e-bench/connect-worker} writes one); connector plugins come from
 * the classpath or from {@link Builder#pluginPath}.
 *
 * <pre>{@code
 * try (LocalConnectWorker worker = LocalConnectWorker.builder(dir, classpathFile, kafka.bootstrapServers())
 *     .pluginPath(pluginDir).start()) {
 *   worker.createConnector("sink", config);
 * }
 * }</pre>
 *
 * <p>The instance owns the process: {@link #close} stops it (SIGTERM, then SIGKILL after 20 s),
 * {@link #kill} SIGKILLs it. The work folder keeps {@code worker.properties}, {@code
 * log4j2.properties} and {@code connect.log}.
 */
public final class LocalConnectWorker implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final Pattern FAILED_TRACE =
      Pattern.compile("\"state\":\"FAILED\"(?:,\"worker_id\":\"[^\"]*\")?(?:,\"trace\":\"((?:[^\"\\\\]|\\\\.)*)\")?");

  private final Process process;
  private final Path dir;
  private final URI rest;
  private final int jmxPort;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private JMXConnector jmx;

  private LocalConnectWorker(Process process, Path dir, URI rest, int jmxPort) {
    this.process = process;
    this.dir = dir;
    this.rest = rest;
    this.jmxPort = jmxPort;
  }

  /** A worker in {@code dir}, on the jars {@code classpathFile} lists, against {@code bootstrapServers}. */
  public static Builder builder(Path dir, Path classpathFile, String bootstrapServers) {
    return new Builder(dir, classpathFile, bootstrapServers);
  }

  /** How to start a worker; defaults: standalone, byte-array keys, JSON values without schemas. */
  public static final class Builder {
    private final Path dir;
    private final Path classpathFile;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private final List<String> jvmOptions = new ArrayList<>();
    private boolean distributed;

    private Builder(Path dir, Path classpathFile, String bootstrapServers) {
      this.dir = dir;
      this.classpathFile = classpathFile;
      properties.put("bootstrap.servers", bootstrapServers);
      properties.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
      properties.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
      properties.put("value.converter.schemas.enable", "false");
      properties.put("offset.flush.interval.ms", "10000");
      properties.put("plugin.discovery", "only_scan");
    }

    /**
     * A member of the distributed cluster {@code groupId}, whose config, offset and status topics
     * (replication 1) are named after it.
     */
    public Builder distributed(String groupId) {
      distributed = true;
      properties.put("group.id", groupId);
      properties.put("config.storage.topic", groupId + "-configs");
      properties.put("offset.storage.topic", groupId + "-offsets");
      properties.put("status.storage.topic", groupId + "-status");
      properties.put("config.storage.replication.factor", "1");
      properties.put("offset.storage.replication.factor", "1");
      properties.put("status.storage.replication.factor", "1");
      return this;
    }

    /** A folder of connector plugins (each a sub-folder of jars), as Connect's {@code plugin.path}. */
    public Builder pluginPath(Path path) {
      properties.put("plugin.path", path.toAbsolutePath().toString());
      return this;
    }

    public Builder workerProperty(String key, String value) {
      properties.put(key, value);
      return this;
    }

    public Builder jvmOptions(List<String> options) {
      jvmOptions.addAll(options);
      return this;
    }

    /** Launches the worker and returns once its REST API answers. */
    public LocalConnectWorker start() throws IOException, InterruptedException {
      Files.createDirectories(dir);
      String classpath = readClasspath(classpathFile);
      int restPort = freePort();
      int jmxPort = freePort();
      properties.put("listeners", "http://127.0.0.1:" + restPort);
      if (!distributed) {
        properties.putIfAbsent("offset.storage.file.filename", dir.resolve("connect.offsets").toString());
      }
      Path workerProperties = dir.resolve("worker.properties");
      StringBuilder text = new StringBuilder();
      properties.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
      Files.writeString(workerProperties, text, StandardCharsets.UTF_8);
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
      command.addAll(List.of(
          "-Djava.awt.headless=true",
          "-Dlog4j2.configurationFile=" + log4j,
          "-Dcom.sun.management.jmxremote.port=" + jmxPort,
          "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort,
          "-Dcom.sun.management.jmxremote.host=127.0.0.1",
          "-Djava.rmi.server.hostname=127.0.0.1",
          "-Dcom.sun.management.jmxremote.authenticate=false",
          "-Dcom.sun.management.jmxremote.ssl=false",
          "-cp", classpath,
          distributed ? "org.apache.kafka.connect.cli.ConnectDistributed" : "org.apache.kafka.connect.cli.ConnectStandalone",
          // Iceberg's connector reads the worker's Kafka settings from this argument (sun.java.command).
          workerProperties.toString()));
      Process process = new ProcessBuilder(command)
          .directory(dir.toFile())
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("connect.log").toFile()))
          .start();
      process.getOutputStream().close();
      LocalConnectWorker worker = new LocalConnectWorker(process, dir, URI.create("http://127.0.0.1:" + restPort), jmxPort);
      try {
        worker.awaitRest();
        return worker;
      } catch (IOException | InterruptedException | RuntimeException e) {
        worker.close();
        throw e;
      }
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }

  private static String readClasspath(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IllegalStateException("no Kafka Connect classpath file " + file + "; the build writes it: "
          + "'mvn install -pl e2e-bench/connect-worker'");
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
        if (get("/").statusCode() == 200) {
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

  public Path log() {
    return dir.resolve("connect.log");
  }

  public URI restUri() {
    return rest;
  }

  /** Submits a connector; Connect starts its tasks at once. */
  public void createConnector(String name, Map<String, String> config) throws IOException, InterruptedException {
    String body = "{\"name\":" + quote(name) + ",\"config\":" + json(config) + "}";
    HttpResponse<String> r = send(request("/connectors").header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    if (r.statusCode() != 201) {
      throw new IllegalStateException("creating connector " + name + " failed: HTTP " + r.statusCode() + " " + r.body());
    }
  }

  /** Restarts a connector's task ({@code POST /connectors/<name>/tasks/<task>/restart}), a failed one too. */
  public void restartTask(String name, int task) throws IOException, InterruptedException {
    HttpResponse<String> r = send(request("/connectors/" + name + "/tasks/" + task + "/restart")
        .POST(HttpRequest.BodyPublishers.noBody()).build());
    if (r.statusCode() != 204 && r.statusCode() != 200) {
      throw new IllegalStateException("restarting task " + task + " of " + name + " failed: HTTP " + r.statusCode()
          + " " + r.body());
    }
  }

  /** Stops and removes a connector (its tasks stop; committed data stays). */
  public void deleteConnector(String name) throws IOException, InterruptedException {
    HttpResponse<String> r = send(request("/connectors/" + name).DELETE().build());
    if (r.statusCode() != 204 && r.statusCode() != 404) {
      throw new IllegalStateException("deleting connector " + name + " failed: HTTP " + r.statusCode() + " " + r.body());
    }
  }

  /** Connect's validation of a config for plugin class {@code connectorClass}: the REST answer's JSON. */
  public String validate(String connectorClass, Map<String, String> config) throws IOException, InterruptedException {
    String simpleName = connectorClass.substring(connectorClass.lastIndexOf('.') + 1);
    HttpResponse<String> r = send(request("/connector-plugins/" + simpleName + "/config/validate")
        .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json(config))).build());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("validating a config failed: HTTP " + r.statusCode() + " " + r.body());
    }
    return r.body();
  }

  /** The connector's status JSON ({@code GET /connectors/<name>/status}), or null if it is unknown. */
  public String status(String name) throws IOException, InterruptedException {
    HttpResponse<String> r = get("/connectors/" + name + "/status");
    return r.statusCode() == 200 ? r.body() : null;
  }

  /** The trace of a failed connector or task (unescaped), or null while they run or before they start. */
  public String failure(String name) throws IOException, InterruptedException {
    String status = status(name);
    if (status == null) {
      return null;
    }
    Matcher m = FAILED_TRACE.matcher(status);
    if (!m.find()) {
      return null;
    }
    return m.group(1) == null ? "failed: " + status : m.group(1).replace("\\n", "\n").replace("\\t", "\t")
        .replace("\\\"", "\"").replace("\\\\", "\\");
  }

  /**
   * Records the connector's tasks on this worker have finished {@code put()} for (Connect's {@code
   * sink-record-send-total}), summed over its tasks; 0 before they exist.
   */
  public long recordsPut(String connector) throws IOException {
    return (long) sum("kafka.connect:type=sink-task-metrics,connector=" + connector + ",*", "sink-record-send-total");
  }

  /** The sum of a numeric attribute over the MBeans a pattern names, read over JMX (0 if none). */
  public double sum(String objectNamePattern, String attribute) throws IOException {
    MBeanServerConnection server = jmx().getMBeanServerConnection();
    try {
      Set<ObjectName> names = server.queryNames(new ObjectName(objectNamePattern), null);
      double sum = 0;
      for (ObjectName name : names) {
        if (server.getAttribute(name, attribute) instanceof Number n) {
          sum += n.doubleValue();
        }
      }
      return sum;
    } catch (JMException e) {
      throw new IOException("reading " + attribute + " of " + objectNamePattern + " over JMX failed", e);
    }
  }

  private JMXConnector jmx() throws IOException {
    if (jmx == null) {
      jmx = JMXConnectorFactory.connect(
          new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi"));
    }
    return jmx;
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return send(request(path).GET().build());
  }

  private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(rest.resolve(path)).timeout(Duration.ofSeconds(60));
  }

  private static String json(Map<String, String> map) {
    StringBuilder out = new StringBuilder("{");
    map.forEach((k, v) -> {
      if (out.length() > 1) {
        out.append(',');
      }
      JsonStrings.appendQuoted(k, out);
      out.append(':');
      JsonStrings.appendQuoted(v, out);
    });
    return out.append('}').toString();
  }

  private static String quote(String s) {
    StringBuilder out = new StringBuilder();
    JsonStrings.appendQuoted(s, out);
    return out.toString();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** The worker's process id (for reading its CPU and memory from the OS). */
  public long pid() {
    return process.pid();
  }

  /** SIGKILL: the worker dies at once, as in a crash (no task is stopped, nothing is flushed). */
  public void kill() throws InterruptedException {
    closeJmx();
    process.destroyForcibly();
    process.waitFor(20, TimeUnit.SECONDS);
  }

  private void closeJmx() {
    if (jmx != null) {
      try {
        jmx.close();
      } catch (IOException ignored) {
        // the worker is going away anyway
      }
      jmx = null;
    }
  }

  @Override
  public void close() {
    closeJmx();
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
