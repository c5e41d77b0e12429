package dev.floe.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FeatureUpdate.UpgradeType;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node Kafka broker (KRaft, broker and controller in one process) on loopback,
 * running as a separate JVM so that tests can stop, kill and restart it, and so that its
 * dependencies never meet the caller's classpath.
 *
 * <pre>{@code
 * try (LocalKafkaBroker kafka = LocalKafkaBroker.start(tempDir)) {
 *   kafka.createTopic("events", 4);
 *   producerProps.put("bootstrap.servers", kafka.bootstrapServers());
 *   ...
 *   kafka.restart(); // same data, same ports: clients reconnect by themselves
 * }
 * }</pre>
 *
 * <p>Lifecycle: {@link #start} formats the data directory if it is new (an existing one is
 * reused with its topics and committed offsets, also after a {@link #kill}), launches the broker
 * and returns once it has joined the cluster and the leader of every partition serves it again.
 * The instance owns that process: {@link #close} stops it (idempotent), and a JVM shutdown hook stops
 * it if the caller forgets. The data directory holds {@code server.properties}, {@code
 * broker.log} (the broker's log, appended across restarts), {@code broker.pid}, {@code
 * bootstrap.servers} and Kafka's {@code kafka-logs/}; it is the caller's to delete. One broker
 * per directory at a time.
 *
 * <p>Topics are not created automatically (see {@link #createTopic}); {@link
 * Builder#brokerProperty} overrides any broker setting, e.g. {@code auto.create.topics.enable}.
 */
public final class LocalKafkaBroker implements AutoCloseable {
  private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration SHUTDOWN_HOOK_STOP_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);
  private static final int LOG_TAIL_LINES = 40;
  static final String ELR_FEATURE = "eligible.leader.replicas.version";

  private final BrokerFiles files;
  private final BrokerPorts ports;
  private final String classpath;
  private final Builder options;
  private final Thread shutdownHook;
  private Process process;
  private boolean closed;

  private LocalKafkaBroker(
      Builder options, BrokerFiles files, BrokerPorts ports, String classpath) {
    this.options = options;
    this.files = files;
    this.ports = ports;
    this.classpath = classpath;
    this.shutdownHook =
        options.detached ? null : new Thread(this::stopOnJvmExit, "floe-kafka-local-shutdown");
  }

  /** Starts a broker with the default settings in {@code dataDir} (created if missing). */
  public static LocalKafkaBroker start(Path dataDir) {
    return builder(dataDir).start();
  }

  public static Builder builder(Path dataDir) {
    return new Builder(dataDir);
  }

  /** {@code host:port} of the broker's plaintext listener; stays the same across restarts. */
  public String bootstrapServers() {
    return ports.bootstrapServers();
  }

  public Path dataDir() {
    return files.dir();
  }

  /** The broker's log file (stdout and stderr of every run in this directory). */
  public Path brokerLog() {
    return files.brokerLog();
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** The broker process id, while it runs. */
  public synchronized OptionalLong pid() {
    return isRunning() ? OptionalLong.of(process.pid()) : OptionalLong.empty();
  }

  /**
   * Creates a topic with replication factor 1 and returns once the leader of every partition
   * serves it ({@link Topics#create}), so that producers and consumers can use it at once.
   */
  public void createTopic(String name, int partitions) {
    createTopic(name, partitions, Map.of());
  }

  /** As {@link #createTopic(String, int)}, with topic settings such as {@code max.message.bytes}. */
  public void createTopic(String name, int partitions, Map<String, String> topicConfig) {
    checkOpen();
    try (Admin admin = Admin.create(adminConfig())) {
      if (!Topics.create(admin, new NewTopic(name, partitions, (short) 1).configs(topicConfig), ADMIN_TIMEOUT)) {
        throw new IllegalStateException("topic " + name + " exists already on " + bootstrapServers());
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "cannot create topic " + name + " on " + bootstrapServers(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + name, e);
    }
  }

  /**
   * Deletes a topic and returns once the broker no longer lists it. A topic created again under
   * the same name is a new topic: a new id, offsets from 0.
   */
  public void deleteTopic(String name) {
    checkOpen();
    try (Admin admin = Admin.create(adminConfig())) {
      admin.deleteTopics(List.of(name)).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      long deadline = System.nanoTime() + ADMIN_TIMEOUT.toNanos();
      while (admin.listTopics().names().get().contains(name)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("topic " + name + " still listed " + ADMIN_TIMEOUT + " after its deletion");
        }
        Thread.sleep(100);
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot delete topic " + name + " on " + bootstrapServers(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while deleting topic " + name, e);
    }
  }

  /**
   * Stops the broker cleanly (SIGTERM: Kafka's controlled shutdown), forcibly after 30 s. The
   * instance stays usable: {@link #restart} starts it again.
   */
  public synchronized void stop() {
    stopProcess(STOP_TIMEOUT);
  }

  /** Kills the broker at once (SIGKILL), like a crash: no flush, no clean shutdown marker. */
  public synchronized void kill() {
    if (process != null) {
      process.destroyForcibly();
      awaitExit(process);
      process = null;
    }
  }

  /**
   * Stops the broker if it runs and starts it again on the same data directory and the same
   * ports, so that clients reconnect to the same bootstrap address. Returns once the leader of
   * every partition serves it again.
   */
  public synchronized void restart() {
    checkOpen();
    stop();
    launchAndAwaitReady();
  }

  /** Stops the broker (see {@link #stop}). Idempotent; the data directory stays. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stop();
    if (shutdownHook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // The JVM is already shutting down; the hook runs or ran anyway.
      }
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("LocalKafkaBroker in " + files.dir() + " is closed");
    }
  }

  private static LocalKafkaBroker start(Builder options) {
    BrokerFiles files = new BrokerFiles(options.dataDir);
    try {
      Files.createDirectories(files.dir());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + files.dir(), e);
    }
    Optional<ProcessHandle> running = BrokerPidFile.liveBroker(files);
    if (running.isPresent()) {
      throw new IllegalStateException(
          "a Kafka broker already runs in " + files.dir() + " (pid " + running.get().pid()
              + "); stop it first (scripts/floe kafka stop --dir " + files.dir() + ")");
    }
    String classpath = BrokerClasspath.load();
    // Reuse the ports of the previous run in this directory when they are free, so that a
    // broker started again after a crash keeps its address.
    BrokerPorts ports =
        BrokerConfig.readPorts(files.serverProperties())
            .filter(BrokerPorts::free)
            .orElseGet(BrokerPorts::pickFree);
    BrokerConfig.writeServerProperties(
        files.serverProperties(), BrokerConfig.serverProperties(ports, files, options.overrides));
    BrokerConfig.writeLog4jConfig(files.log4jConfig());

    LocalKafkaBroker broker = new LocalKafkaBroker(options, files, ports, classpath);
    if (broker.shutdownHook != null) {
      Runtime.getRuntime().addShutdownHook(broker.shutdownHook);
    }
    try {
      if (!Files.exists(files.metaProperties())) {
        broker.formatStorage();
      }
      synchronized (broker) {
        broker.launchAndAwaitReady();
      }
      return broker;
    } catch (RuntimeException e) {
      broker.close();
      throw e;
    }
  }

  /**
   * {@code kafka-storage format} with a fresh cluster id, in a short-lived JVM.
   *
   * <p>Eligible leader replicas (KIP-966, on by default for clusters formatted by Kafka 4.1) are
   * turned off. They protect multi-replica partitions; on one node they only add a way to lose
   * every leader: a clean stop moves the node from each partition's ISR into its ELR, and the node
   * must leave the ELR again when it comes back without proof of that clean stop (a stop that
   * timed out and was killed), which leaves the partition without ISR, ELR or leader until an
   * unclean election. Without ELR the node stays in the ISR and is elected again when it returns.
   */
  private void formatStorage() {
    String clusterId = Uuid.randomUuid().toString();
    List<String> command = javaCommand(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"));
    command.addAll(List.of("kafka.tools.StorageTool", "format", "-t", clusterId));
    command.addAll(List.of("--feature", ELR_FEATURE + "=0"));
    command.addAll(List.of("-c", files.serverProperties().toString()));
    Process format = launch(command);
    try {
      if (!format.waitFor(FORMAT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        format.destroyForcibly();
        throw failure("formatting the storage took longer than " + FORMAT_TIMEOUT);
      }
    } catch (InterruptedException e) {
      format.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while formatting " + files.logDirs(), e);
    }
    if (format.exitValue() != 0) {
      throw failure("formatting the storage failed with exit code " + format.exitValue());
    }
  }

  private void launchAndAwaitReady() {
    List<String> command = javaCommand(options.jvmOptions);
    command.addAll(List.of("kafka.Kafka", files.serverProperties().toString()));
    process = launch(command);
    BrokerPidFile.write(files, process.pid());
    awaitReady();
    try {
      Files.writeString(files.bootstrapFile(), bootstrapServers() + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + files.bootstrapFile(), e);
    }
  }

  /**
   * Waits until an admin client sees the broker in the cluster (it has left the fenced state) and
   * the leader of every partition of every topic serves it again (see {@link ServingPartitions}),
   * so that clients can produce and fetch at once after {@link #start} and {@link #restart}.
   */
  private void awaitReady() {
    long deadline = System.nanoTime() + options.startTimeout.toNanos();
    Map<String, Object> config = adminConfig();
    config.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
    try (Admin admin = Admin.create(config)) {
      List<TopicPartition> unserved = List.of();
      while (true) {
        if (!process.isAlive()) {
          throw failure("the broker exited with code " + process.exitValue() + " while starting");
        }
        try {
          DescribeClusterOptions quick = new DescribeClusterOptions().timeoutMs(2_000);
          if (!admin.describeCluster(quick).nodes().get().isEmpty()) {
            turnOffEligibleLeaderReplicas(admin);
            unserved = ServingPartitions.notServed(admin, allTopics(admin), Duration.ofSeconds(2));
            if (unserved.isEmpty()) {
              return;
            }
          }
        } catch (ExecutionException | TimeoutException e) {
          // Not listening yet, or not unfenced yet: try again until the deadline.
        }
        if (System.nanoTime() > deadline) {
          process.destroyForcibly();
          awaitExit(process);
          throw failure(
              "the broker was not ready within " + options.startTimeout
                  + (unserved.isEmpty() ? "" : " (partitions no leader serves: " + unserved + ")"));
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the broker", e);
    }
  }

  /**
   * Data directories formatted before floe turned eligible leader replicas off at format time
   * (see {@link #formatStorage}) still have them on: downgrade the feature, which Kafka documents
   * as safe.
   */
  private static void turnOffEligibleLeaderReplicas(Admin admin)
      throws InterruptedException, ExecutionException, TimeoutException {
    FinalizedVersionRange elr =
        admin
            .describeFeatures()
            .featureMetadata()
            .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .finalizedFeatures()
            .get(ELR_FEATURE);
    if (elr != null && elr.maxVersionLevel() > 0) {
      admin
          .updateFeatures(
              Map.of(ELR_FEATURE, new FeatureUpdate((short) 0, UpgradeType.SAFE_DOWNGRADE)),
              new UpdateFeaturesOptions())
          .all()
          .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** Every topic, internal ones included. */
  private static Set<String> allTopics(Admin admin)
      throws InterruptedException, ExecutionException, TimeoutException {
    return admin
        .listTopics(new ListTopicsOptions().listInternal(true).timeoutMs(2_000))
        .names()
        .get(2_000, TimeUnit.MILLISECONDS);
  }

  private Map<String, Object> adminConfig() {
    Map<String, Object> config = new LinkedHashMap<>();
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    config.put(AdminClientConfig.CLIENT_ID_CONFIG, "floe-kafka-local");
    return config;
  }

  private List<String> javaCommand(List<String> jvmOptions) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    if (Runtime.version().feature() >= 24) {
      // kafka-clients unmaps buffers through sun.misc.Unsafe; JDK 24+ warns about it on stderr.
      command.add("--sun-misc-unsafe-memory-access=allow");
    }
    command.add(BrokerPidFile.marker(files));
    command.add("-Dlog4j2.configurationFile=" + files.log4jConfig());
    command.add("-Djava.awt.headless=true");
    command.add("-cp");
    command.add(classpath);
    return command;
  }

  private Process launch(List<String> command) {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(files.dir().toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(files.brokerLog().toFile()));
    try {
      Process started = builder.start();
      started.getOutputStream().close(); // nothing to say on its stdin
      return started;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot launch " + command.getFirst(), e);
    }
  }

  private void stopProcess(Duration timeout) {
    if (process == null) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        awaitExit(process);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    process = null;
    BrokerPidFile.delete(files);
  }

  private void stopOnJvmExit() {
    synchronized (this) {
      stopProcess(SHUTDOWN_HOOK_STOP_TIMEOUT);
    }
  }

  private static void awaitExit(Process process) {
    boolean interrupted = false;
    while (true) {
      try {
        process.waitFor();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private IllegalStateException failure(String what) {
    return new IllegalStateException(
        "Kafka broker in " + files.dir() + ": " + what + "; last lines of " + files.brokerLog()
            + ":\n" + LogTail.of(files.brokerLog(), LOG_TAIL_LINES));
  }

  /** Settings for {@link LocalKafkaBroker}; {@link #start} launches the broker. */
  public static final class Builder {
    private final Path dataDir;
    private final Map<String, String> overrides = new LinkedHashMap<>();
    private List<String> jvmOptions =
        List.of("-Xms64m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError");
    private Duration startTimeout = Duration.ofSeconds(60);
    private boolean detached;

    private Builder(Path dataDir) {
      this.dataDir = dataDir;
    }

    /** Sets one broker property ({@code server.properties}) over floe's defaults. */
    public Builder brokerProperty(String key, String value) {
      overrides.put(key, value);
      return this;
    }

    /** The broker JVM's options; default {@code -Xms64m -Xmx512m -XX:+UseSerialGC}. */
    public Builder jvmOptions(List<String> options) {
      this.jvmOptions = List.copyOf(options);
      return this;
    }

    /** How long {@link #start} and {@link LocalKafkaBroker#restart} wait; default 60 s. */
    public Builder startTimeout(Duration timeout) {
      this.startTimeout = timeout;
      return this;
    }

    /**
     * For the command line: the broker outlives this JVM (no shutdown hook); stop it through its
     * pid file.
     */
    Builder detached() {
      this.detached = true;
      return this;
    }

    public LocalKafkaBroker start() {
      return LocalKafkaBroker.start(this);
    }
  }
}
