package dev.floe.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-to-end driver at a tiny scale on a real broker: floe, the stock Java sink and bare
 * consume, each in a JVM of its own, all produce exactly the corpus, a contender that duplicates
 * rows is caught and reported as failed, floe's memory child runs, and the report comes out as
 * JSON, markdown and PNG.
 */
class E2eBenchmarkTest {
  @TempDir Path work;
  @TempDir Path out;

  @Test
  void tinyRunValidatesEveryContenderAndWritesTheReport() throws Exception {
    E2eOptions options = E2eOptions.parse(new String[] {
      "--events", "2000", "--synthetic-events", "2000",
      "--contenders", "floe,stock-java,bare-consume",
      "--warmup", "0", "--pairs", "1",
      "--commit-records", "700", // several commits per run
      "--memory-sample-ms", "100",
      "--out", out.toString(), "--report-name", "tiny", "--label", "test run"});
    List<String> notes = new ArrayList<>();
    List<Contender> contenders = new ArrayList<>(E2eBenchmark.contenders(options, work, notes));
    contenders.add(new DuplicatingContender());

    E2eReport report = E2eBenchmark.run(options, contenders, work, notes);

    assertEquals(2 * 4, report.runs().size(), "2 corpora x 4 contenders x 1 round");
    for (RunResult run : report.runs()) {
      if (run.contender().equals("duplicating")) {
        assertFalse(run.valid(), "a table with duplicated rows must fail validation");
        assertTrue(run.failure().contains("rows"), run.failure());
        assertTrue(Double.isNaN(report.summary(run.corpus(), "duplicating").medianMessagesPerSecond()),
            "a failed run is not timed");
      } else {
        assertTrue(run.valid(), run + " should be valid");
        assertTrue(run.messagesPerSecond() > 0, run.toString());
      }
    }
    assertEquals(2000, report.topics().getFirst().events());
    assertTrue(report.contenders().get("floe").contains("in a JVM of its own"), report.contenders().toString());
    assertTrue(Files.isRegularFile(work.resolve("floe.log")), "the floe JVM's log goes to the work folder");
    MemoryProfile memory = report.memory();
    assertNotNull(memory);
    assertTrue(memory.valid(), memory.failure());
    assertTrue(memory.peakHeapMiB() > 0 && memory.peakRssMiB() > memory.peakHeapMiB() / 4, memory.toString());
    assertFalse(memory.rssSamples().isEmpty());

    List<Path> files = ReportWriter.write(report, out, "tiny");
    assertEquals(List.of(out.resolve("tiny.md"), out.resolve("tiny.json"), out.resolve("tiny.png")), files);
    JsonNode json = new ObjectMapper().readTree(out.resolve("tiny.json").toFile());
    assertEquals(8, json.path("runs").size());
    assertTrue(json.path("ratios").path("synthetic").has("floe/stock-java"), json.path("ratios").toString());
    // Reported, not judged (NaN here: so tiny a run has no samples after its warmup).
    assertTrue(json.path("memory").has("rssGrowthAfterWarmup"), json.path("memory").toString());
    assertFalse(json.has("targets"), "the report shows measured figures and ratios, no targets");
    String md = Files.readString(out.resolve("tiny.md"));
    assertTrue(md.contains("> **test run**") && md.contains("| synthetic | floe |") && md.contains("tiny.png"), md);
    BufferedImage png = ImageIO.read(out.resolve("tiny.png").toFile());
    assertEquals(1000, png.getWidth());

    ReportWriter.render(out.resolve("tiny.json"));
    assertEquals(md, Files.readString(out.resolve("tiny.md")), "the JSON holds everything the markdown shows");
  }

  /** The stock sink, then one of its files appended a second time: duplicated rows. */
  private static final class DuplicatingContender implements Contender {
    @Override
    public String id() {
      return "duplicating";
    }

    @Override
    public String description() {
      return "test only: writes every row, then some twice";
    }

    @Override
    public Outcome run(RunSpec run) throws Exception {
      Outcome outcome = new StockJavaContender().run(run);
      Table table = run.catalog().loadTable(run.table());
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        DataFile first = tasks.iterator().next().file();
        AppendFiles append = table.newAppend();
        append.appendFile(first);
        append.commit();
      }
      return outcome;
    }
  }
}
