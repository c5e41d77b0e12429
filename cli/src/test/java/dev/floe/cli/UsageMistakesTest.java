package dev.floe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mistakes a new user made following the README (helper-79's pass), each refused with what was
 * wrong in the words of the command line, with the exit code the README's table gives. None
 * reaches a broker: the sink's settings are checked before it connects.
 */
class UsageMistakesTest {
  @TempDir Path dir;

  /** {@code rows.jsonl}, one row of a required long {@code id}, and its schema as {@code schemaFile}. */
  private void writeOneRowAndItsSchema(String schemaFile) throws Exception {
    Files.writeString(dir.resolve("rows.jsonl"), "{\"id\":1}\n");
    Files.writeString(dir.resolve(schemaFile),
        "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}");
  }

  private CliProcess.Result sink(String... more) throws Exception {
    String[] args = new String[4 + more.length];
    args[0] = "sink";
    args[1] = "--bootstrap=localhost:1";
    args[2] = "--warehouse";
    args[3] = dir.resolve("wh").toString();
    System.arraycopy(more, 0, args, 4, more.length);
    return CliProcess.run(dir, args);
  }

  @Test
  void aTopicWithoutARouteIsRefusedInsteadOfEveryRecordBeingBad() throws Exception {
    CliProcess.Result r = sink("--route", "bids=db.bids", "--topic", "other", "--on-error", "skip");
    assertEquals(FloeCli.EXIT_USAGE, r.exitCode(), r.err());
    assertTrue(r.err().contains("no route for topic other: give each --topic a --route TOPIC=NS.TABLE"), r.err());

    CliProcess.Result fieldOnly = sink("--route", "bids=db.bids", "--route-field", "kind");
    assertEquals(FloeCli.EXIT_USAGE, fieldOnly.exitCode(), fieldOnly.err());
    assertTrue(fieldOnly.err().contains("--route-field kind needs routes by its value (--route-value)"), fieldOnly.err());
  }

  @Test
  void theSinksMessagesKeepTheirWords() throws Exception {
    CliProcess.Result none = sink();
    assertEquals(FloeCli.EXIT_USAGE, none.exitCode());
    assertTrue(none.err().contains("give --route TOPIC=NS.TABLE, or --topic with --route-field and --route-value"),
        none.err());
    CliProcess.Result dlq = sink("--route", "a=db.a", "--on-error", "dlq");
    assertEquals(FloeCli.EXIT_USAGE, dlq.exitCode());
    assertTrue(dlq.err().contains("bad records to a dead-letter topic need the topic's name (--dlq-topic)"), dlq.err());

    // a created table's partitioning needs the schema it is created with: named as the flag
    CliProcess.Result partitioned = sink("--route", "a=db.a", "--partition-by", "bucket(4,id)");
    assertEquals(FloeCli.EXIT_USAGE, partitioned.exitCode(), partitioned.err());
    assertTrue(partitioned.err().contains("applies to created tables: set --schema too"), partitioned.err());

    CliProcess.Result help = CliProcess.run(dir, "sink", "--help");
    String text = help.out().replaceAll("\\s+", " ");
    assertTrue(text.contains("The dead-letter topic for --on-error=dlq; given alone, it sets --on-error=dlq"), text);
    assertFalse(text.contains("on.error"), "setting names in the help: " + text);
  }

  @Test
  void aRouteToATableWithoutNamespaceIsRefusedAsFloeWriteRefusesIt() throws Exception {
    CliProcess.Result r = sink("--route", "bids=bids");
    assertEquals(FloeCli.EXIT_USAGE, r.exitCode(), r.err());
    assertTrue(r.err().contains("bids=bids") && r.err().contains("expected TOPIC=NAMESPACE.TABLE"), r.err());
  }

  /** A topic or a regex given twice was routed by its last entry alone, without a word (helper-89). */
  @Test
  void aRouteGivenTwiceIsRefused() throws Exception {
    CliProcess.Result topic = sink("--route", "bids=db.one", "--route", "bids=db.two");
    assertEquals(FloeCli.EXIT_USAGE, topic.exitCode(), topic.err());
    assertTrue(topic.err().contains("topic 'bids' is routed twice (to db.one first)"), topic.err());
    CliProcess.Result regex = sink("--topic", "events", "--route-field", "kind", "--route-value", "view=db.one",
        "--route-value", "view=db.two");
    assertEquals(FloeCli.EXIT_USAGE, regex.exitCode(), regex.err());
    assertTrue(regex.err().contains("regex 'view' is given twice (for db.one first)"), regex.err());
  }

  @Test
  void aMissingSchemaFileFailsTheRunAsInFloeWrite() throws Exception {
    CliProcess.Result r = sink("--route", "a=db.a", "--schema", "nope.json");
    assertEquals(FloeCli.EXIT_FAILED, r.exitCode(), r.err());
    assertTrue(r.err().contains("schema not found: nope.json"), r.err());
  }

  @Test
  void aBrokenSchemaFileIsSaidEvenWhereTheTablesOwnSchemaDecides() throws Exception {
    writeOneRowAndItsSchema("good.json");
    Files.writeString(dir.resolve("dup.json"), "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        + "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        + "{\"id\":1,\"name\":\"other\",\"required\":false,\"type\":\"long\"}]}");
    String wh = dir.resolve("wh").toString();
    CliProcess.Result created = CliProcess.run(dir, "write", "--input", "rows.jsonl", "--schema", "good.json",
        "--table", "db.t", "--warehouse", wh);
    assertEquals(0, created.exitCode(), created.err());
    CliProcess.Result again = CliProcess.run(dir, "write", "--input", "rows.jsonl", "--schema", "dup.json",
        "--table", "db.t", "--warehouse", wh);
    assertEquals(FloeCli.EXIT_FAILED, again.exitCode(), again.err());
    assertTrue(again.err().contains("cannot read schema dup.json"), again.err());
  }

  /** A folder as the file to write failed after the whole input, naming the run's temp file (helper-89). */
  @Test
  void aFolderGivenAsTheFileToWriteIsRefusedBeforeTheRun() throws Exception {
    writeOneRowAndItsSchema("s.json");
    Files.createDirectories(dir.resolve("outdir"));
    CliProcess.Result output = CliProcess.run(dir, "write", "--input", "rows.jsonl", "--schema", "s.json", "--output", "outdir");
    assertEquals(FloeCli.EXIT_USAGE, output.exitCode(), output.err());
    assertTrue(output.err().contains("--output outdir is a directory"), output.err());
    CliProcess.Result dlq = CliProcess.run(dir, "write", "--input", "rows.jsonl", "--schema", "s.json", "--output", "x.parquet",
        "--dlq", "outdir");
    assertEquals(FloeCli.EXIT_USAGE, dlq.exitCode(), dlq.err());
    assertTrue(dlq.err().contains("--dlq outdir is a directory"), dlq.err());
    CliProcess.Result policy = CliProcess.run(dir, "write", "--input", "rows.jsonl", "--schema", "s.json", "--output", "x.parquet",
        "--dlq", "d.jsonl", "--on-error", "skip");
    assertTrue(policy.err().contains("not --on-error skip"), policy.err());
  }

  /** A table's codec's default level, given as a flag, asks for what the table has (helper-89: refused). */
  @Test
  void theCodecsDefaultLevelIsTheTablesLevel() throws Exception {
    writeOneRowAndItsSchema("s.json");
    String wh = dir.resolve("wh").toString();
    CliProcess.Result created = CliProcess.run(dir, "write", "--input", "rows.jsonl", "--schema", "s.json", "--table", "db.z",
        "--warehouse", wh);
    assertEquals(0, created.exitCode(), created.err());
    CliProcess.Result same = CliProcess.run(dir, "write", "--input", "rows.jsonl", "--table", "db.z", "--warehouse", wh,
        "--codec", "zstd", "--level", "3");
    assertEquals(0, same.exitCode(), same.err());
    CliProcess.Result other = CliProcess.run(dir, "write", "--input", "rows.jsonl", "--table", "db.z", "--warehouse", wh,
        "--level", "5");
    assertEquals(FloeCli.EXIT_FAILED, other.exitCode(), other.err());
    assertTrue(other.err().contains("exists with other writer settings"), other.err());
  }

  @Test
  void aFolderGivenToInspectIsNamedAsOne() throws Exception {
    Files.createDirectories(dir.resolve("table"));
    CliProcess.Result r = CliProcess.run(dir, "inspect", "table");
    assertEquals(FloeCli.EXIT_FAILED, r.exitCode());
    assertTrue(r.err().contains("is a directory, not a Parquet file"), r.err());
  }

  @Test
  void catalogPropertiesWithoutATypeSaySo() throws Exception {
    CliProcess.Result r = CliProcess.run(dir, "inspect", "--table", "db.events", "--catalog-property", "typ=jdbc");
    assertEquals(FloeCli.EXIT_FAILED, r.exitCode());
    assertTrue(r.err().contains("no catalog type given: set --catalog-property type=rest, jdbc or hadoop"), r.err());

    CliProcess.Result noUri = CliProcess.run(dir, "inspect", "--table", "db.events", "--catalog-property", "type=jdbc");
    assertEquals(FloeCli.EXIT_FAILED, noUri.exitCode());
    assertTrue(noUri.err().contains("a JDBC catalog needs its database: --catalog-property uri=jdbc:..."), noUri.err());
  }
}
