package dev.floe.cli;

import dev.floe.corpus.NexmarkGenerator;
import dev.floe.corpus.NexmarkJson;
import dev.floe.corpus.SyntheticGenerator;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code floe generate}: the benchmark corpora as JSON lines, byte-identical for a seed. */
@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    description = {
      "Generate a benchmark corpus as JSON lines (one message per line).",
      "nexmark: Nexmark events as Flink's Kafka JSON format writes them (1 person : 3 auctions : 46 bids).",
      "synthetic: flat ~142-byte events (id, user_id, event_type, value, info, ts)."
    })
final class GenerateCommand implements Callable<Integer> {
  enum Corpus {
    nexmark,
    synthetic
  }

  @Spec CommandSpec spec;

  @Parameters(index = "0", description = "Corpus: ${COMPLETION-CANDIDATES}.")
  Corpus corpus;

  @Option(names = "--events", required = true, description = "Number of events.")
  long events;

  @Option(names = "--seed", defaultValue = "42", description = "Generator seed (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--output", description = "File to write (default: stdout). Written to a temp file, then renamed.")
  Path output;

  @Override
  public Integer call() throws IOException {
    if (events < 0) {
      throw new IllegalArgumentException("--events must be >= 0");
    }
    if (output == null) {
      OutputStream stdout = new BufferedOutputStream(System.out, 1 << 16);
      write(stdout);
      stdout.flush();
      return 0;
    }
    Path target = output.toAbsolutePath();
    try (TempFile temp = TempFile.beside(target)) {
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp.path()), 1 << 20)) {
        write(out);
      }
      temp.moveTo(target);
    }
    PrintWriter err = spec.commandLine().getErr();
    err.printf("floe generate: wrote %,d %s events (seed %d) to %s%n", events, corpus, seed, target);
    err.flush();
    return 0;
  }

  private void write(OutputStream out) throws IOException {
    Progress progress = Progress.start(spec.commandLine().getErr(), "generate " + corpus, events, output != null);
    switch (corpus) {
      case nexmark -> {
        NexmarkGenerator generator = new NexmarkGenerator(seed);
        StringBuilder line = new StringBuilder(1024);
        for (long i = 0; i < events; i++) {
          line.setLength(0);
          NexmarkJson.append(generator.next(), line);
          line.append('\n');
          out.write(line.toString().getBytes(StandardCharsets.UTF_8));
          progress.step();
        }
      }
      case synthetic -> {
        SyntheticGenerator generator = new SyntheticGenerator(seed);
        for (long i = 0; i < events; i++) {
          out.write(generator.nextBytes());
          out.write('\n');
          progress.step();
        }
      }
    }
    progress.done();
  }
}
