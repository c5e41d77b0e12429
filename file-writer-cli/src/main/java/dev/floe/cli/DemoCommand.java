package dev.floe.cli;

import dev.floe.arrow.NativeParquetWriter;
import dev.floe.arrow.ParquetFileSummary;
import dev.floe.arrow.ParquetWriterConfig;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The README's main job, for now: generate Nexmark bids as Arrow and write them to a Parquet file
 * with the native writer, then print what was written. The Kafka sink issue turns it into the
 * end-to-end Kafka -> Iceberg demo.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = "Generate Nexmark bids and write them to Parquet with floe's native writer.")
final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--bids", defaultValue = "1000000", description = "Bids to write (default: ${DEFAULT-VALUE}).")
  long bids;

  @Option(names = "--seed", defaultValue = "42", description = "Generator seed (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--output",
      defaultValue = "floe-demo/nexmark-bids.parquet",
      description = "Parquet file to write (default: ${DEFAULT-VALUE}).")
  Path output;

  @Option(names = "--batch-rows", defaultValue = "8192", description = "Rows per Arrow batch (default: ${DEFAULT-VALUE}).")
  int batchRows;

  @Override
  public Integer call() throws Exception {
    if (bids <= 0 || batchRows <= 0) {
      throw new IllegalArgumentException("--bids and --batch-rows must be > 0");
    }
    PrintWriter out = spec.commandLine().getOut();
    Path file = output.toAbsolutePath();
    Files.createDirectories(file.getParent());
    out.printf("floe demo: writing %,d Nexmark bids (seed %d) to %s%n", bids, seed, file);
    out.flush();

    long encodeNanos = 0;
    ParquetFileSummary summary;
    try (BufferAllocator allocator = new RootAllocator();
        NativeParquetWriter writer =
            NativeParquetWriter.open(file, BidBatches.SCHEMA, ParquetWriterConfig.defaults(), allocator)) {
      BidBatches batches = new BidBatches(seed, allocator);
      try {
        for (long written = 0; written < bids; ) {
          int rows = (int) Math.min(batchRows, bids - written);
          var root = batches.next(rows);
          long start = System.nanoTime();
          writer.write(root);
          encodeNanos += System.nanoTime() - start;
          written += rows;
        }
        long start = System.nanoTime();
        summary = writer.finish();
        encodeNanos += System.nanoTime() - start;
      } finally {
        batches.close();
      }
    }
    print(out, file, summary, encodeNanos);
    return 0;
  }

  private static void print(PrintWriter out, Path file, ParquetFileSummary summary, long encodeNanos) {
    double seconds = encodeNanos / 1e9;
    long uncompressed =
        summary.rowGroups().stream()
            .flatMap(g -> g.columns().stream())
            .mapToLong(ParquetFileSummary.ColumnChunk::uncompressedSize)
            .sum();
    out.printf("rows          %,d%n", summary.rowCount());
    out.printf("file          %s (%,d bytes)%n", file, summary.fileSize());
    out.printf("row groups    %d, split offsets %s%n", summary.rowGroups().size(), summary.splitOffsets());
    out.printf("compression   %s, %,d -> %,d column bytes (%.1fx)%n",
        summary.rowGroups().getFirst().columns().getFirst().codec(),
        uncompressed,
        summary.rowGroups().stream().mapToLong(ParquetFileSummary.RowGroup::compressedSize).sum(),
        uncompressed / (double) Math.max(1, summary.rowGroups().stream().mapToLong(ParquetFileSummary.RowGroup::compressedSize).sum()));
    out.printf("native encode %.2f s: %,.0f rows/s, %,.1f MB/s of column data%n",
        seconds, summary.rowCount() / seconds, uncompressed / 1e6 / seconds);
    out.println("columns:");
    for (ParquetFileSummary.ColumnChunk c : summary.rowGroups().getFirst().columns()) {
      out.printf("  %-10s field id %-2s %-10s %,12d bytes%n",
          c.dotPath(), c.fieldId(), c.physicalType(), c.compressedSize());
    }
    out.flush();
  }
}
