package dev.floe.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.floe.iceberg.Catalogs;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The child side of {@link OwnJvmContender}: builds one contender and runs it once per JSON line
 * on stdin, answering each with one JSON line on stdout (its outcome, or {@code error}); exits when
 * stdin closes. Everything else the JVM prints goes to stderr, so stdout carries only answers.
 *
 * <p>Arguments: contender id, warehouse folder (its embedded catalog is the driver's), floe's
 * encode threads, floe's decode-ahead (true|false).
 */
public final class ContenderChild {
  private ContenderChild() {}

  public static void main(String[] args) throws Exception {
    PrintStream answers = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    String id = args[0];
    Path warehouse = Path.of(args[1]);
    Contender contender = E2eBenchmark.inThisJvm(id, Integer.parseInt(args[2]), Boolean.parseBoolean(args[3]));
    ObjectMapper json = new ObjectMapper();
    Catalog catalog = Catalogs.embedded(warehouse);
    try (contender;
        BufferedReader requests = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line; (line = requests.readLine()) != null; ) {
        JsonNode r = json.readTree(line);
        LoadedTopic topic = new LoadedTopic(Corpus.of(r.path("corpus").asText()), r.path("topic").asText(),
            r.path("partitions").asInt(), r.path("events").asLong(), r.path("payloadBytes").asLong(), null);
        RunSpec run = new RunSpec(topic, r.path("bootstrap").asText(), catalog, warehouse,
            TableIdentifier.parse(r.path("table").asText()), r.path("group").asText(),
            new RunSpec.CommitCadence(Duration.ofMillis(r.path("intervalMs").asLong()), r.path("records").asLong()),
            Duration.ofMillis(r.path("timeoutMs").asLong()));
        System.gc(); // as the driver does: the previous run's garbage is not this run's cost
        ObjectNode answer = json.createObjectNode();
        try {
          Contender.Outcome o = contender.run(run);
          answer.put("nanos", o.nanos()).put("records", o.records()).put("bytes", o.bytes())
              .put("committedNanos", o.committedNanos()).put("note", o.note());
        } catch (Exception | Error e) {
          e.printStackTrace();
          answer.put("error", e.toString());
        }
        answers.println(json.writeValueAsString(answer));
      }
    } finally {
      if (catalog instanceof AutoCloseable c) {
        c.close();
      }
    }
  }
}
