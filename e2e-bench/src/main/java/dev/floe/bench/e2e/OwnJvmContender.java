package dev.floe.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A contender in a JVM of its own, started at its first run and kept across rounds, the way a sink
 * is deployed: the driver's work (loading topics, reading tables back, the other contenders) stays
 * out of its JIT profiles, heap and GC. One JSON line per run goes to {@link ContenderChild} on its
 * stdin and one comes back on its stdout; the child's log is a file in the work folder.
 */
final class OwnJvmContender implements Contender {
  /** What the child prints once its stdout is closed (it exited or crashed). */
  private static final String END = "\0end";
  /** How long past the run's own timeout the driver waits for the child's answer. */
  private static final Duration GRACE = Duration.ofMinutes(2);

  private final String id;
  private final String description;
  private final boolean writesTable;
  private final List<String> command;
  private final Path log;
  private final ObjectMapper json = new ObjectMapper();
  private Process child;
  private BufferedWriter requests;
  private BlockingQueue<String> replies;

  /**
   * @param local the same contender in this JVM (its id, description and whether it writes a table)
   * @param childArguments what {@link ContenderChild} needs to build it again
   * @param classpath the child's classpath (floe-baseline: another commit's jar), or null for the driver's
   */
  OwnJvmContender(Contender local, List<String> childArguments, String classpath, String heap, Path log) {
    this.id = local.id();
    this.description = local.description() + "; in a JVM of its own (-Xmx" + heap + "), kept across rounds"
        + (classpath == null ? "" : "; code and libfloe from " + classpath);
    this.writesTable = local.writesTable();
    this.log = log;
    List<String> c = ChildJvm.command(heap, List.of(
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dorg.slf4j.simpleLogger.log.org.apache.kafka=error"),
        classpath == null ? System.getProperty("java.class.path") : classpath, ContenderChild.class);
    c.addAll(childArguments);
    this.command = List.copyOf(c);
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public boolean writesTable() {
    return writesTable;
  }

  @Override
  public Outcome run(RunSpec run) throws Exception {
    ensureStarted();
    ObjectNode request = json.createObjectNode()
        .put("corpus", run.topic().corpus().id())
        .put("topic", run.topic().topic())
        .put("partitions", run.topic().partitions())
        .put("events", run.topic().events())
        .put("payloadBytes", run.topic().payloadBytes())
        .put("bootstrap", run.bootstrapServers())
        .put("table", run.table().toString())
        .put("group", run.group())
        .put("intervalMs", run.cadence().interval().toMillis())
        .put("records", run.cadence().records())
        .put("timeoutMs", run.timeout().toMillis());
    requests.write(json.writeValueAsString(request));
    requests.newLine();
    requests.flush();
    String line = replies.poll(run.timeout().plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
    if (line == null || line.equals(END)) {
      String why = line == null ? "did not answer in time" : "exited";
      stop();
      throw new IllegalStateException(id + "'s JVM " + why + "; its log " + log + " ends:\n" + MemoryRun.tail(log, 30));
    }
    JsonNode reply = json.readTree(line);
    if (reply.has("error")) {
      throw new IllegalStateException(id + " failed in its JVM: " + reply.path("error").asText() + " (log " + log + ")");
    }
    return new Outcome(reply.path("nanos").asLong(), reply.path("records").asLong(), reply.path("bytes").asLong(),
        reply.path("committedNanos").asLong(), reply.path("note").isNull() ? null : reply.path("note").asText(null));
  }

  @Override
  public OptionalLong startProcess(String bootstrapServers) throws IOException {
    ensureStarted();
    return OptionalLong.of(child.pid());
  }

  private void ensureStarted() throws IOException {
    if (child != null && child.isAlive()) {
      return;
    }
    child = new ProcessBuilder(command)
        .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
    requests = new BufferedWriter(new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8));
    BlockingQueue<String> queue = new LinkedBlockingQueue<>();
    BufferedReader answers = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    Thread.ofPlatform().daemon().name(id + "-replies").start(() -> {
      try (answers) {
        for (String line; (line = answers.readLine()) != null; ) {
          queue.add(line);
        }
      } catch (IOException ignored) {
        // the child is gone; END below says so
      }
      queue.add(END);
    });
    replies = queue;
  }

  /** Closes the child's stdin (it exits after its current run) and waits a little, then kills it. */
  private void stop() throws InterruptedException {
    if (child == null) {
      return;
    }
    try {
      requests.close();
    } catch (IOException ignored) {
      // already gone
    }
    if (!child.waitFor(30, TimeUnit.SECONDS)) {
      child.destroyForcibly();
      child.waitFor();
    }
    child = null;
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
