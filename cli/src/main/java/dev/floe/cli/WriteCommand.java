package dev.floe.cli;

import dev.floe.arrow.BadRecordException;
import dev.floe.arrow.BadRecordPolicy;
import dev.floe.arrow.DecodeStats;
import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.MessageBatch;
import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.RejectedMessage;
import dev.floe.arrow.UnknownField;
import dev.floe.iceberg.ArrowSchemas;
import dev.floe.iceberg.SchemaFiles;
import dev.floe.iceberg.TableEvolution;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code floe write}: JSON lines to one Parquet file or appended to an Iceberg table, decoded and
 * encoded natively, batch by batch (memory stays bounded for any input size).
 */
@Command(
    name = "write",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Write JSON lines (one object per line) to a Parquet file or append them to an Iceberg table. "
          + "Decoding and encoding are native; the input streams through in batches.",
      "Nothing appears under the output's name unless the whole run succeeds: a temp file is renamed, "
          + "or one Iceberg commit adds the files (a missing table is created in that same commit). "
          + "Columns --evolve-schema adds are committed before the data, and stay if the run fails."
    },
    footer = {
      "",
      "Examples:",
      "  floe write --input bids.jsonl --schema bids.schema.json --output bids.parquet",
      "  floe write --input bids.jsonl --schema bids.schema.json \\",
      "      --table nexmark.bids --warehouse wh --partition-by 'bucket(8,auction)' \\",
      "      --on-error dlq --dlq bad-bids.jsonl",
      "",
      "Exit codes: 0 written; 1 failed (missing/unreadable input or schema, a bad line under "
          + "--on-error fail, I/O or catalog errors); 2 bad usage."
    })
final class WriteCommand implements Callable<Integer> {
  /** Skipped lines named on stderr under --on-error skip, before "and N more". */
  private static final int SKIPPED_LINES_SHOWN = 10;

  @Spec CommandSpec spec;

  @Option(names = "--input", required = true, paramLabel = "FILE", description = "JSON lines to read ('-' for stdin).")
  String input;

  @Option(
      names = "--schema",
      paramLabel = "FILE",
      description = "Iceberg schema as JSON (SchemaParser's form). Needed for --output and to create a table.")
  Path schema;

  static final class Destination {
    @Option(names = "--output", paramLabel = "FILE", description = "Parquet file to write (replaced if it exists).")
    Path output;

    @Option(names = "--table", paramLabel = "NAMESPACE.NAME", description = "Iceberg table to append to (created if missing).")
    String table;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Destination destination;

  @Option(
      names = "--partition-by",
      paramLabel = "SPEC",
      description = "Partitioning of a table created by this run, e.g. 'bucket(4,id),day(ts)'.")
  String partitionBy;

  @Mixin CatalogOptions catalog;

  @Mixin WriterOptions writerOptions;

  @Option(
      names = "--on-error",
      paramLabel = "POLICY",
      converter = BadRecordPolicyFlag.class,
      description = "Bad lines: fail, skip or dlq (default: fail, or dlq with --dlq).")
  BadRecordPolicy onError;

  @Option(
      names = "--dlq",
      paramLabel = "FILE",
      description = "Dead letters: one JSON object per bad line {line, error, record | record_base64}.")
  Path dlq;

  @Option(names = "--strict", description = "Reject lines with fields the schema does not have.")
  boolean strict;

  @Option(
      names = "--evolve-schema",
      description = "Evolve an existing --table from the lines: add optional columns for fields they carry and"
          + " the table lacks, widen int, float and decimal columns their values need.")
  boolean evolveSchema;

  @Option(
      names = "--batch-rows",
      defaultValue = "8192",
      paramLabel = "N",
      description = "Lines per native decode call (default: ${DEFAULT-VALUE}).")
  int batchRows;

  @Option(
      names = "--batch-bytes",
      defaultValue = "8MiB",
      paramLabel = "SIZE",
      converter = ByteSize.class,
      description = "Input bytes per native decode call (default: ${DEFAULT-VALUE}).")
  long batchBytes;

  @Option(names = "--quiet", description = "No progress lines on stderr.")
  boolean quiet;

  @Override
  public Integer call() throws Exception {
    BadRecordPolicy policy = validate();
    try (InputStream in = openInput();
        JsonLines lines = new JsonLines(in);
        BufferAllocator allocator = new RootAllocator()) {
      Catalog opened = destination.table != null ? catalog.open() : null;
      try (WriteTarget target = openTarget(opened, allocator);
          DeadLetters deadLetters = policy == BadRecordPolicy.DEAD_LETTER ? DeadLetters.create(dlq) : null) {
        // Throughput covers the data path (decode, encode, commit), not JVM and library start-up.
        long started = System.nanoTime();
        Counts counts = copy(lines, target, policy, deadLetters);
        WriteTarget.Written written = commit(target, deadLetters);
        printSummary(counts, lines, written, deadLetters, System.nanoTime() - started);
      } finally {
        if (opened instanceof AutoCloseable closeable) {
          closeable.close();
        }
      }
    }
    return FloeCli.EXIT_OK;
  }

  /**
   * Dead letters first (a rename), then the rows; if the rows cannot be committed, the dead
   * letters are withdrawn too, so a failed run leaves neither.
   */
  private static WriteTarget.Written commit(WriteTarget target, DeadLetters deadLetters) throws IOException {
    if (deadLetters == null) {
      return target.commit();
    }
    deadLetters.commit();
    try {
      return target.commit();
    } catch (CommitStateUnknownException e) {
      throw e; // the rows may be in the table: keep their dead letters
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(deadLetters.target());
      throw e;
    }
  }

  /** Checks the flags go together (exit 2 otherwise) and returns the bad-line policy. */
  private BadRecordPolicy validate() {
    if (destination.output != null) {
      if (schema == null) {
        throw usage("--output needs --schema");
      }
      if (catalog.given() || partitionBy != null) {
        throw usage("--warehouse, --catalog-*, --partition-by go with --table, not --output");
      }
    } else {
      catalog.validate(spec, "--table");
    }
    BadRecordPolicy policy = onError != null ? onError : dlq != null ? BadRecordPolicy.DEAD_LETTER : BadRecordPolicy.FAIL;
    if (policy == BadRecordPolicy.DEAD_LETTER && dlq == null) {
      throw usage("--on-error dlq needs --dlq FILE");
    }
    if (policy != BadRecordPolicy.DEAD_LETTER && dlq != null) {
      throw usage("--dlq goes with --on-error dlq, not --on-error " + policy.name().toLowerCase(java.util.Locale.ROOT));
    }
    requireFileName("--output", destination.output);
    requireFileName("--dlq", dlq);
    requireDistinct("--input", input.equals("-") ? null : Path.of(input), "--output", destination.output);
    requireDistinct("--input", input.equals("-") ? null : Path.of(input), "--dlq", dlq);
    requireDistinct("--output", destination.output, "--dlq", dlq);
    if (evolveSchema && destination.table == null) {
      throw usage("--evolve-schema goes with --table");
    }
    if (evolveSchema && strict) {
      throw usage("--evolve-schema adds the fields --strict would reject: give one of them");
    }
    if (batchRows <= 0 || batchRows > 1_000_000) {
      throw usage("--batch-rows must be 1..1000000");
    }
    String invalidWriterFlag = writerOptions.invalidFlag();
    if (invalidWriterFlag != null) {
      throw usage(invalidWriterFlag);
    }
    return policy;
  }

  /**
   * A file the run writes must not be a directory: found only when the run's temp file was renamed
   * to it, after the whole input, the error named the temp file (helper-89).
   */
  private void requireFileName(String flag, Path path) {
    if (path != null && Files.isDirectory(path)) {
      throw usage(flag + " " + path + " is a directory: give the file to write");
    }
  }

  /** Two paths the run reads or writes must be two files: one would overwrite the other. */
  private void requireDistinct(String firstFlag, Path first, String secondFlag, Path second) {
    if (first == null || second == null) {
      return;
    }
    boolean same = first.toAbsolutePath().normalize().equals(second.toAbsolutePath().normalize());
    if (!same && Files.exists(first) && Files.exists(second)) {
      try {
        same = Files.isSameFile(first, second);
      } catch (java.io.IOException e) {
        // unreadable: the run reports it when it opens them
      }
    }
    if (same) {
      throw usage(firstFlag + " and " + secondFlag + " name the same file (" + first + "): the run would overwrite it");
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  private InputStream openInput() throws IOException {
    if (input.equals("-")) {
      return System.in;
    }
    Path path = Path.of(input);
    if (Files.isDirectory(path)) {
      // Opening a directory succeeds on Linux; only the first read fails, with no path in its message.
      throw new IllegalArgumentException("input is a directory, not a file of JSON lines: " + input);
    }
    try {
      return Files.newInputStream(path);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("input not found: " + input);
    } catch (java.nio.file.AccessDeniedException e) {
      throw new IllegalArgumentException("input not readable (permission denied): " + input);
    }
  }

  private WriteTarget openTarget(Catalog opened, BufferAllocator allocator) throws IOException {
    if (destination.output != null) {
      org.apache.arrow.vector.types.pojo.Schema arrow = ArrowSchemas.toArrow(SchemaFiles.read(schema));
      return ParquetFileTarget.open(destination.output, arrow, writerOptions.config(), allocator);
    }
    TableIdentifier name;
    try {
      name = TableIdentifier.parse(destination.table);
    } catch (IllegalArgumentException e) {
      name = null;
    }
    if (name == null || name.namespace().isEmpty() || name.name().isEmpty()) {
      throw usage("--table '" + destination.table + "' is not NAMESPACE.NAME");
    }
    try {
      return IcebergTableTarget.open(
          opened, name, schema, partitionBy, writerOptions.tableProperties(), evolveSchema, allocator);
    } catch (IcebergTableTarget.BadPartitioningException e) {
      throw usage("--partition-by " + e.getMessage());
    }
  }

  private record Counts(long rows, long rejected) {}

  /** Streams every line through the decoder into the target; bad lines go where the policy says. */
  private Counts copy(JsonLines lines, WriteTarget target, BadRecordPolicy onError, DeadLetters deadLetters)
      throws IOException {
    // Skipped lines are named on stderr (the first few): the decoder hands them over under SKIP too.
    BadRecordPolicy policy = onError == BadRecordPolicy.FAIL ? BadRecordPolicy.FAIL : BadRecordPolicy.DEAD_LETTER;
    PrintWriter err = spec.commandLine().getErr();
    long size = input.equals("-") ? 0 : Files.size(Path.of(input));
    Progress progress = Progress.startBytes(err, "floe write", size, !quiet);
    long[] lineNumbers = new long[batchRows];
    long rows = 0;
    long rejected = 0;
    JsonDecoderConfig config = evolveSchema
        ? TableEvolution.DESCRIBING
        : JsonDecoderConfig.defaults().withStrict(strict).withReportUnknownFields(!strict);
    Map<String, Long> unknownValues = new TreeMap<>(); // fields the schema lacks: not written, said at the end
    try (NativeJsonDecoder decoder = NativeJsonDecoder.create(target.arrowSchema(), config);
        MessageBatch batch = new MessageBatch()) {
      long before = 0;
      while (lines.fill(batch, lineNumbers, batchRows, batchBytes) > 0) {
        DecodeStats stats;
        try {
          stats = target.write(decoder, batch, policy);
        } catch (BadRecordException e) {
          throw new IllegalArgumentException(
              describeInput() + " line " + lineNumbers[e.rejected().index()] + ": " + e.rejected().reason()
                  + " (--on-error skip|dlq keeps the good lines)");
        }
        for (RejectedMessage r : stats.rejected()) {
          long line = lineNumbers[r.index()];
          if (deadLetters != null) {
            deadLetters.add(line, r.reason(), r.payload());
          } else if (rejected < SKIPPED_LINES_SHOWN) {
            err.printf("floe write: skipped line %d: %s%n", line, r.reason());
          }
          rejected++;
        }
        rows += stats.rows();
        if (!evolveSchema) {
          for (UnknownField field : decoder.takeUnknownFields()) {
            if (!field.needsWidening()) {
              unknownValues.merge(field.shownPath(), field.count(), Long::sum);
            }
          }
        }
        progress.advance(lines.bytesRead() - before);
        before = lines.bytesRead();
      }
    }
    if (deadLetters == null && rejected > SKIPPED_LINES_SHOWN) {
      err.printf("floe write: skipped %,d more bad lines%n", rejected - SKIPPED_LINES_SHOWN);
    }
    if (!unknownValues.isEmpty()) {
      err.printf("floe write: not written, fields the schema has no column for: %s (--evolve-schema adds them to a"
          + " table; --strict rejects their lines)%n", unknownValues.entrySet().stream()
              .map(e -> "'" + e.getKey() + "' (" + String.format("%,d", e.getValue()) + " values)")
              .collect(Collectors.joining(", ")));
    }
    progress.done();
    err.flush();
    return new Counts(rows, rejected);
  }

  private String describeInput() {
    return input.equals("-") ? "stdin" : input;
  }

  private void printSummary(
      Counts counts, JsonLines lines, WriteTarget.Written written, DeadLetters deadLetters, long nanos) {
    PrintWriter out = spec.commandLine().getOut();
    double seconds = Math.max(1e-9, nanos / 1e9);
    out.printf("floe write: %s -> %s (%s)%n", describeInput(), written.where(), written.detail());
    out.printf("rows written   %,d%n", counts.rows());
    out.printf("rows rejected  %,d%s%n", counts.rejected(),
        deadLetters != null ? " -> " + deadLetters.target() : counts.rejected() > 0 ? " (skipped)" : "");
    if (lines.blankLines() > 0) {
      out.printf("blank lines    %,d (skipped)%n", lines.blankLines());
    }
    out.printf("files          %,d%n", written.files());
    out.printf("bytes          %,d%n", written.bytes());
    out.printf("throughput     %,.0f rows/s, %,.1f MB/s of JSON (%,d bytes in %.2f s)%n",
        counts.rows() / seconds, lines.bytesRead() / 1e6 / seconds, lines.bytesRead(), seconds);
    out.flush();
  }
}
