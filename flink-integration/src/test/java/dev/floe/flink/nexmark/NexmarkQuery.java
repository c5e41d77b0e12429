package dev.floe.flink.nexmark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/**
 * One query of the suite, read from {@code nexmark/<name>.sql} on the classpath: a {@code CREATE
 * TABLE} of its output with {@code ${SINK}} for the connector options, any views of its own, then
 * its {@code INSERT}.
 * Header comments say which column the output table is bucketed by ({@code -- bucket:}) and how
 * two engines' outputs are compared ({@code -- check:}, see {@link OutputCheck#parse}). A primary
 * key in the {@code CREATE TABLE} makes the output an upsert table.
 */
public record NexmarkQuery(
    String name, String createSink, List<String> views, String insert, String bucketColumn, OutputCheck check) {
  /** Every query of the Nexmark suite for Flink, q0 to q22. */
  public static final List<String> NAMES = IntStream.rangeClosed(0, 22).mapToObj(i -> "q" + i).toList();

  public static List<NexmarkQuery> all() {
    return NAMES.stream().map(NexmarkQuery::load).toList();
  }

  public static NexmarkQuery load(String name) {
    String text = resource(name + ".sql");
    List<String> statements = statements(text);
    int last = statements.size() - 1;
    if (last < 1 || !statements.get(0).startsWith("CREATE TABLE") || !statements.get(last).startsWith("INSERT INTO")) {
      throw new IllegalStateException(name + ".sql must hold a CREATE TABLE, views, and an INSERT INTO");
    }
    return new NexmarkQuery(
        name,
        statements.get(0),
        statements.subList(1, last),
        statements.get(last),
        header(text, name, "bucket"),
        OutputCheck.parse(header(text, name, "check")));
  }

  /** The output table's name as the SQL writes it. */
  public String sinkTable() {
    return "nexmark_" + name;
  }

  public boolean upserts() {
    return createSink.contains("PRIMARY KEY");
  }

  /** The statements of a SQL resource, its comment lines dropped. */
  static List<String> statements(String text) {
    String code =
        String.join("\n", text.lines().filter(line -> !line.stripLeading().startsWith("--")).toList());
    return Arrays.stream(code.split(";\\s*(\n|$)")).map(String::strip).filter(s -> !s.isEmpty()).toList();
  }

  static String resource(String file) {
    try (InputStream in = NexmarkQuery.class.getResourceAsStream("/nexmark/" + file)) {
      if (in == null) {
        throw new IllegalArgumentException("no Nexmark resource " + file + " (queries are q0 to q22)");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String header(String text, String query, String key) {
    String prefix = "-- " + key + ":";
    return text.lines()
        .filter(line -> line.startsWith(prefix))
        .map(line -> line.substring(prefix.length()).strip())
        .findFirst()
        .orElseThrow(() -> new IllegalStateException(query + ".sql has no '" + prefix + "' line"));
  }
}
