package dev.floe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodedBatch;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.iceberg.ArrowSchemas;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code floe write} to Parquet files, run as a separate process, checked value by value. */
class WriteCommandTest {
  @TempDir Path dir;

  @Test
  void writesEveryLineToParquetExactlyAndInspectShowsTheFooter() throws Exception {
    List<List<Object>> rows = TestRows.rows(1, 1, 3000);
    Files.write(dir.resolve("in.jsonl"), TestRows.jsonLines(rows));
    TestRows.writeSchema(dir);

    // Small batches and row groups: many decode calls and several row groups in one file.
    CliProcess.Result r =
        CliProcess.run(dir, "write", "--input", "in.jsonl", "--schema", "schema.json", "--output", "out.parquet",
            "--codec", "gzip", "--row-group-bytes", "48k", "--batch-rows", "500");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("rows written   3,000\n"), r.out());
    assertTrue(r.out().contains("rows rejected  0\n"), r.out());
    assertTrue(r.out().contains("files          1\n"), r.out());
    Path out = dir.resolve("out.parquet");
    assertTrue(r.out().contains(String.format("bytes          %,d%n", Files.size(out))), r.out());
    assertEquals(List.of(), r.errLines(), "no progress lines for a short run, no warnings");

    assertEquals(rows, ParquetRows.read(out));
    int rowGroups;
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(out))) {
      List<BlockMetaData> groups = reader.getFooter().getBlocks();
      rowGroups = groups.size();
      assertTrue(rowGroups > 1, "row groups: " + rowGroups);
      groups.forEach(g -> g.getColumns().forEach(c -> assertEquals(CompressionCodecName.GZIP, c.getCodec())));
    }
    assertEquals(List.of("in.jsonl", "out.parquet", "schema.json"), listing(dir), "no temp files left");

    CliProcess.Result inspect = CliProcess.run(dir, "inspect", "out.parquet");
    assertEquals(0, inspect.exitCode(), inspect.err());
    String text = inspect.out();
    assertTrue(text.contains("rows          3,000\n"), text);
    assertTrue(text.contains(String.format("row groups    %d%n", rowGroups)), text);
    assertTrue(text.contains("required int64 id = 1;"), text);
    assertTrue(text.contains("optional binary element (STRING) = 9;"), text);
    assertTrue(text.contains("required double lat = 11;"), text);
    assertEquals(rowGroups, text.lines().filter(l -> l.startsWith("row group ")).count(), text);
    List<String> idChunks = text.lines().filter(l -> l.startsWith("  id ")).toList();
    assertEquals(rowGroups, idChunks.size(), text);
    idChunks.forEach(l -> assertTrue(l.matches("  id +1  INT64 +GZIP .* 0  \\d+\\s+\\d+"), l));
    assertTrue(idChunks.getFirst().matches(".* 0  1\\s+\\d+"), "the first row group starts at id 1: " + idChunks.getFirst());
    assertTrue(idChunks.getLast().endsWith("  3000"), "the last row group ends at id 3000: " + idChunks.getLast());
  }

  /** Fields the schema has no column for are not written, and said so (helper-61: before, nothing was said). */
  @Test
  void fieldsTheSchemaLacksAreNamedWithTheirCounts() throws Exception {
    Files.writeString(dir.resolve("in.jsonl"), "{\"id\":1,\"extra\":\"x\"}\n{\"id\":2,\"extra\":\"y\",\"more\":{\"a\":1}}\n");
    TestRows.writeSchema(dir);
    CliProcess.Result r =
        CliProcess.run(dir, "write", "--input", "in.jsonl", "--schema", "schema.json", "--output", "out.parquet");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("rows written   2\n"), r.out());
    assertTrue(r.err().contains("not written, fields the schema has no column for: 'extra' (2 values), 'more' (1 values)"),
        r.err());
  }

  @Test
  void dlqKeepsEveryGoodLineAndRecordsEveryBadOneExactly() throws Exception {
    Mixed mixed = Mixed.build();
    Files.write(dir.resolve("in.jsonl"), mixed.bytes());
    TestRows.writeSchema(dir);

    CliProcess.Result r =
        CliProcess.run(dir, "write", "--input", "in.jsonl", "--schema", "schema.json", "--output", "good.parquet",
            "--on-error", "dlq", "--dlq", "bad.jsonl", "--batch-rows", "64");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("rows written   " + mixed.good().size() + "\n"), r.out());
    assertTrue(r.out().contains("rows rejected  " + mixed.bad().size() + " -> " + dir.resolve("bad.jsonl").toAbsolutePath()), r.out());
    assertTrue(r.out().contains("blank lines    1 (skipped)"), r.out());
    assertEquals(mixed.good(), ParquetRows.read(dir.resolve("good.parquet")));

    List<String> dlq = Files.readAllLines(dir.resolve("bad.jsonl"), StandardCharsets.UTF_8);
    assertEquals(mixed.bad().size(), dlq.size(), String.join("\n", dlq));
    ObjectMapper json = new ObjectMapper();
    for (int i = 0; i < dlq.size(); i++) {
      Mixed.Bad expected = mixed.bad().get(i);
      JsonNode got = json.readTree(dlq.get(i));
      String text = utf8OrNull(expected.bytes());
      List<String> fields = new ArrayList<>();
      got.fieldNames().forEachRemaining(fields::add);
      assertEquals(List.of("line", "error", text != null ? "record" : "record_base64"), fields, dlq.get(i));
      assertEquals(expected.line(), got.get("line").asLong(), dlq.get(i));
      assertEquals(reasonAlone(expected.bytes()), got.get("error").asText(), dlq.get(i));
      if (text != null) {
        assertEquals(text, got.get("record").asText());
      } else {
        assertEquals(Base64.getEncoder().encodeToString(expected.bytes()), got.get("record_base64").asText());
      }
    }
    assertEquals(List.of("bad.jsonl", "good.parquet", "in.jsonl", "schema.json"), listing(dir));
  }

  @Test
  void failByDefaultNamesTheFirstBadLineAndLeavesNoOutput() throws Exception {
    Mixed mixed = Mixed.build();
    Files.write(dir.resolve("in.jsonl"), mixed.bytes());
    TestRows.writeSchema(dir);
    Files.writeString(dir.resolve("out.parquet.keep"), "not touched");

    CliProcess.Result r =
        CliProcess.run(dir, "write", "--input", "in.jsonl", "--schema", "schema.json", "--output", "out.parquet");
    assertEquals(FloeCli.EXIT_FAILED, r.exitCode());
    Mixed.Bad first = mixed.bad().getFirst();
    assertEquals(
        List.of("floe write: in.jsonl line " + first.line() + ": " + reasonAlone(first.bytes())
            + " (--on-error skip|dlq keeps the good lines)"),
        r.errLines());
    assertEquals("", r.out());
    assertEquals(List.of("in.jsonl", "out.parquet.keep", "schema.json"), listing(dir));
  }

  @Test
  void badUsageMissingInputAndUnreadableSchemaAreOneLineAndLeaveNothing() throws Exception {
    Files.write(dir.resolve("in.jsonl"), TestRows.jsonLines(TestRows.rows(2, 1, 10)));
    TestRows.writeSchema(dir);
    Files.writeString(dir.resolve("broken.json"), "{\"type\": \"struct\", \"fields\": [");

    expectOneLine(FloeCli.EXIT_USAGE, "floe write: Unknown option: '--compression=zstd' (see 'floe write --help')",
        "write", "--input", "in.jsonl", "--schema", "schema.json", "--output", "out.parquet", "--compression=zstd");
    expectOneLine(FloeCli.EXIT_USAGE, "floe write: --on-error dlq needs --dlq FILE (see 'floe write --help')",
        "write", "--input", "in.jsonl", "--schema", "schema.json", "--output", "out.parquet", "--on-error", "dlq");
    expectOneLine(FloeCli.EXIT_USAGE, "floe write: --page-rows must be > 0, got 0 (see 'floe write --help')",
        "write", "--input", "in.jsonl", "--schema", "schema.json", "--output", "out.parquet", "--page-rows", "0");
    expectOneLine(FloeCli.EXIT_USAGE, "floe write: --level for zstd must be 1..22, got 23 (see 'floe write --help')",
        "write", "--input", "in.jsonl", "--schema", "schema.json", "--output", "out.parquet", "--level", "23");
    // One file named twice: the run would overwrite it (before, exit 0, and the input or the dead
    // letters were replaced by the Parquet file)
    expectOneLine(FloeCli.EXIT_USAGE, "floe write: --input and --output name the same file (in.jsonl)",
        "write", "--input", "in.jsonl", "--schema", "schema.json", "--output", "in.jsonl");
    expectOneLine(FloeCli.EXIT_USAGE, "floe write: --input and --dlq name the same file (in.jsonl)",
        "write", "--input", "in.jsonl", "--schema", "schema.json", "--output", "out.parquet", "--dlq", "./in.jsonl");
    expectOneLine(FloeCli.EXIT_USAGE, "floe write: --output and --dlq name the same file (both.out)",
        "write", "--input", "in.jsonl", "--schema", "schema.json", "--output", "both.out", "--dlq", "both.out");
    expectOneLine(FloeCli.EXIT_FAILED, "floe write: input not found: missing.jsonl",
        "write", "--input", "missing.jsonl", "--schema", "schema.json", "--output", "out.parquet");
    Files.createDirectory(dir.resolve("a-directory"));
    // Before, only the read failed, saying "Is a directory" without the path
    expectOneLine(FloeCli.EXIT_FAILED, "floe write: input is a directory, not a file of JSON lines: a-directory",
        "write", "--input", "a-directory", "--schema", "schema.json", "--output", "out.parquet");
    Files.delete(dir.resolve("a-directory"));
    expectOneLine(FloeCli.EXIT_FAILED, "floe write: cannot read schema broken.json: invalid JSON at line 1, column ",
        "write", "--input", "in.jsonl", "--schema", "broken.json", "--output", "out.parquet");
    expectOneLine(FloeCli.EXIT_FAILED,
        "floe inspect: cannot read Parquet footer: " + dir.resolve("in.jsonl").toAbsolutePath() + " is not a Parquet file",
        "inspect", "in.jsonl");
    assertEquals(List.of("broken.json", "in.jsonl", "schema.json"), listing(dir));
  }

  /** The run exits with {@code exitCode}, prints nothing on stdout and one line starting so on stderr. */
  private void expectOneLine(int exitCode, String lineStart, String... args) throws Exception {
    CliProcess.Result r = CliProcess.run(dir, args);
    assertEquals(exitCode, r.exitCode(), r.err());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.errLines().getFirst().startsWith(lineStart), r.err());
    assertEquals("", r.out());
  }

  static List<String> listing(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static String utf8OrNull(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      return null;
    }
  }

  /** Why libfloe rejects this message on its own: what the CLI must report for its line. */
  static String reasonAlone(byte[] message) {
    try (BufferAllocator allocator = new RootAllocator();
        NativeJsonDecoder decoder =
            NativeJsonDecoder.create(ArrowSchemas.toArrow(TestRows.SCHEMA), JsonDecoderConfig.defaults());
        MessageBatch batch = new MessageBatch();
        DecodedBatch decoded = decoder.decode(batch.add(message), BadRecordPolicy.DEAD_LETTER, allocator)) {
      assertEquals(1, decoded.rejected().size(), new String(message, StandardCharsets.UTF_8));
      return decoded.rejected().getFirst().reason();
    }
  }

  /**
   * Good rows with bad lines among them: a wrong type, truncated JSON, bytes that are not UTF-8, a
   * missing required field, an out-of-range number; plus a blank line (not a message), a CRLF line
   * end and a last line without a newline.
   */
  record Mixed(byte[] bytes, List<List<Object>> good, List<Bad> bad) {
    record Bad(long line, byte[] bytes) {}

    static Mixed build() {
      return build(1);
    }

    /** 200 good rows with ids from {@code firstId}. */
    static Mixed build(long firstId) {
      List<List<Object>> rows = TestRows.rows(3, firstId, 200);
      byte[][] badLines = {
        "{\"id\":\"x\"}".getBytes(StandardCharsets.UTF_8),
        "{\"id\":5,".getBytes(StandardCharsets.UTF_8),
        {'{', '"', 'i', 'd', '"', ':', '7', ',', '"', 'n', 'a', 'm', 'e', '"', ':', '"', (byte) 0xff, (byte) 0xfe, '"', '}'},
        "{\"name\":\"no id\"}".getBytes(StandardCharsets.UTF_8),
        "{\"id\":99999999999999999999}".getBytes(StandardCharsets.UTF_8),
      };
      int[] badAfter = {3, 20, 50, 80, 120};
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      List<Bad> bad = new ArrayList<>();
      long line = 0;
      int nextBad = 0;
      for (int i = 0; i < rows.size(); i++) {
        byte[] json = TestRows.json(rows.get(i)).getBytes(StandardCharsets.UTF_8);
        out.writeBytes(json);
        line++;
        boolean last = i == rows.size() - 1;
        out.writeBytes(last ? new byte[0] : i == 150 ? new byte[] {'\r', '\n'} : new byte[] {'\n'});
        if (i + 1 == 10) {
          out.writeBytes("  \n".getBytes(StandardCharsets.UTF_8));
          line++;
        }
        if (nextBad < badAfter.length && i + 1 == badAfter[nextBad]) {
          out.writeBytes(badLines[nextBad]);
          out.write('\n');
          line++;
          bad.add(new Bad(line, badLines[nextBad]));
          nextBad++;
        }
      }
      return new Mixed(out.toByteArray(), rows, bad);
    }
  }
}
