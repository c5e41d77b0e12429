package dev.floe.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code floe inspect}: a Parquet file's footer, or an Iceberg table's snapshots and files. */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Show a Parquet file's footer (read with parquet-java): schema with field ids, row groups, "
          + "per column chunk codec, encodings, sizes, value/null counts, min/max statistics.",
      "Or an Iceberg table: schema, partitioning, properties, snapshots with their summaries, and "
          + "the current snapshot's data files with partition, records, size and column metrics."
    },
    footer = {
      "",
      "Examples:",
      "  floe inspect bids.parquet",
      "  floe inspect --table nexmark.bids --warehouse wh --json",
      "",
      "Exit codes: 0 shown; 1 failed (no such file or table, not a Parquet file); 2 bad usage."
    })
final class InspectCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", arity = "0..1", paramLabel = "FILE", description = "Parquet file to inspect.")
  Path file;

  @Option(names = "--table", paramLabel = "NAMESPACE.NAME", description = "Iceberg table to inspect instead.")
  String table;

  @Mixin CatalogOptions catalog;

  @Option(names = "--max-files", defaultValue = "100", paramLabel = "N", description = "Data files to show (default: ${DEFAULT-VALUE}).")
  int maxFiles;

  @Option(names = "--json", description = "Print one JSON document instead of text.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    if ((file == null) == (table == null)) {
      throw new ParameterException(spec.commandLine(), "give a Parquet FILE or --table NAMESPACE.NAME (one of them)");
    }
    if (file != null && catalog.given()) {
      throw new ParameterException(spec.commandLine(), "--warehouse and --catalog-* go with --table, not a FILE");
    }
    if (file != null && spec.commandLine().getParseResult().hasMatchedOption("--max-files")) {
      throw new ParameterException(spec.commandLine(), "--max-files goes with --table (a FILE's report has no data files"
          + " to list)");
    }
    if (table != null) {
      catalog.validate(spec, "--table");
    }
    if (maxFiles < 0) {
      throw new ParameterException(spec.commandLine(), "--max-files must be >= 0");
    }
    PrintWriter out = spec.commandLine().getOut();
    if (file != null) {
      ParquetFooterReport report = ParquetFooterReport.read(file);
      if (json) {
        printJson(out, report.toJson(new ObjectMapper()));
      } else {
        report.printText(out);
      }
      return FloeCli.EXIT_OK;
    }
    Catalog opened = catalog.openExisting(spec);
    try {
      Table loaded = opened.loadTable(TableIdentifier.parse(table));
      TableReport report = TableReport.read(table, loaded, maxFiles);
      if (json) {
        printJson(out, report.toJson(new ObjectMapper()));
      } else {
        report.printText(out);
      }
    } finally {
      if (opened instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
    return FloeCli.EXIT_OK;
  }

  private static void printJson(PrintWriter out, Object tree) throws Exception {
    out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(tree));
    out.flush();
  }
}
