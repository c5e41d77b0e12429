package dev.floe.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalKafkaCliTest {
  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @AfterEach
  void stopWhateverStarted() {
    run("stop", "--dir", dir.toString());
  }

  @Test
  void startStatusStopADetachedBroker() throws Exception {
    assertEquals(LocalKafkaCli.NOT_RUNNING, run("status", "--dir", dir.toString()));

    assertEquals(LocalKafkaCli.OK, run("start", "--dir", dir.toString()), err.toString());
    String bootstrap = out.toString(StandardCharsets.UTF_8).strip();
    assertTrue(bootstrap.matches("127\\.0\\.0\\.1:\\d+"), bootstrap);
    long pid = Long.parseLong(Files.readString(dir.resolve("broker.pid")).strip());
    assertTrue(ProcessHandle.of(pid).orElseThrow().isAlive());

    // A working broker, owned by no JVM here: plain clients only.
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin.createTopics(List.of(new NewTopic("cli", 1, (short) 1))).all().get();
      ServingPartitions.await(admin, List.of("cli"), Duration.ofSeconds(30));
    }
    try (KafkaProducer<String, String> producer = TestClients.producer(bootstrap)) {
      TestClients.produce(producer, "cli", 0, 10);
    }
    assertEquals(
        TestClients.range(0, 10),
        TestClients.sortedSequence(TestClients.readAll(bootstrap, "cli", 1, 10)));

    assertEquals(LocalKafkaCli.OK, run("status", "--dir", dir.toString()));
    String status = out.toString();
    assertTrue(status.contains("running: pid " + pid + ", bootstrap " + bootstrap), status);

    assertEquals(LocalKafkaCli.OK, run("start", "--dir", dir.toString()));
    assertEquals(bootstrap, out.toString().strip(), "a second start reports the running broker");
    assertTrue(err.toString().contains("already runs"), err.toString());

    assertEquals(LocalKafkaCli.OK, run("stop", "--dir", dir.toString()), err.toString());
    assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    assertFalse(Files.exists(dir.resolve("broker.pid")));
    assertTrue(Files.readString(dir.resolve("broker.log")).contains("shut down completely"));
    assertEquals(LocalKafkaCli.NOT_RUNNING, run("status", "--dir", dir.toString()));
  }

  @Test
  void badArgumentsPrintUsage() {
    assertEquals(LocalKafkaCli.USAGE, run("start"));
    assertEquals(LocalKafkaCli.USAGE, run("frobnicate", "--dir", dir.toString()));
    assertTrue(err.toString().contains("usage: floe kafka start|stop|status --dir DIR"));
  }

  private int run(String... args) {
    out.reset();
    err.reset();
    return new LocalKafkaCli(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8))
        .run(args);
  }
}
