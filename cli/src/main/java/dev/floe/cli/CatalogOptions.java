package dev.floe.cli;

import dev.floe.iceberg.Catalogs;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Which Iceberg catalog a command uses: floe's embedded one at {@code --warehouse DIR}, or any
 * catalog Iceberg can build from properties ({@code --catalog-property}, {@code --catalog-config}).
 */
final class CatalogOptions {
  @Option(
      names = "--warehouse",
      paramLabel = "DIR",
      description = "The embedded catalog: Iceberg's JDBC catalog on SQLite ('floe', DIR/catalog.db), tables under DIR.")
  Path warehouse;

  @Option(
      names = "--catalog-property",
      paramLabel = "KEY=VALUE",
      description = "A catalog property (repeatable), e.g. type=rest, uri=http://..., warehouse=s3://...; overrides --catalog-config.")
  Map<String, String> properties = new LinkedHashMap<>();

  @Option(names = "--catalog-config", paramLabel = "FILE", description = "Catalog properties from a Java properties file.")
  Path configFile;

  @Option(
      names = "--catalog-name",
      defaultValue = Catalogs.EMBEDDED_NAME,
      paramLabel = "NAME",
      description = "Catalog name for --catalog-property/--catalog-config (default: ${DEFAULT-VALUE}).")
  String name;

  /** True when any catalog option was given. */
  boolean given() {
    return warehouse != null || !properties.isEmpty() || configFile != null;
  }

  /** Checks the flags go together; call before doing any work. */
  void validate(CommandSpec spec, String forWhat) {
    boolean custom = !properties.isEmpty() || configFile != null;
    if (warehouse != null && custom) {
      throw new ParameterException(
          spec.commandLine(), "--warehouse (the embedded catalog) and --catalog-property/--catalog-config exclude each other");
    }
    if (warehouse != null && spec.commandLine().getParseResult().hasMatchedOption("--catalog-name")) {
      throw new ParameterException(spec.commandLine(), "--catalog-name names a catalog built from --catalog-property/"
          + "--catalog-config; the embedded catalog of --warehouse is always '" + Catalogs.EMBEDDED_NAME + "'");
    }
    if (warehouse == null && !custom) {
      throw new ParameterException(
          spec.commandLine(), forWhat + " needs a catalog: --warehouse DIR, --catalog-property KEY=VALUE or --catalog-config FILE");
    }
  }

  /**
   * Opens an existing catalog for reading: an embedded one whose warehouse has no catalog yet is
   * refused, naming the folder, instead of being created there (a mistyped --warehouse).
   */
  Catalog openExisting(CommandSpec spec) {
    if (warehouse != null && !Files.isRegularFile(warehouse.resolve("catalog.db"))) {
      throw new ParameterException(spec.commandLine(), "--warehouse " + warehouse.toAbsolutePath()
          + " holds no catalog (no catalog.db there): is it the warehouse the tables were written to?");
    }
    return open();
  }

  /** Opens the catalog; close it after use if it is {@link AutoCloseable}. */
  Catalog open() {
    if (warehouse != null) {
      return Catalogs.embedded(warehouse);
    }
    Map<String, String> merged = new LinkedHashMap<>();
    if (configFile != null) {
      merged.putAll(readProperties(configFile));
    }
    merged.putAll(properties);
    try {
      return Catalogs.load(name, merged);
    } catch (IllegalArgumentException | NullPointerException e) { // Iceberg's checkNotNull for a missing property
      boolean typed = merged.containsKey(CatalogUtil.ICEBERG_CATALOG_TYPE) || merged.containsKey(CatalogProperties.CATALOG_IMPL);
      if (!typed && String.valueOf(e.getMessage()).contains("org.apache.iceberg.hive.HiveCatalog")) {
        // helper-79: Iceberg's error names only the Hive catalog it took by default
        throw new IllegalArgumentException("no catalog type given: set --catalog-property type=rest, jdbc or hadoop"
            + " (or glue, nessie or hive, with their Iceberg modules added by FLOE_CLASSPATH), or catalog-impl=CLASS;"
            + " without one, Iceberg takes its Hive catalog, which floe does not bundle", e);
      }
      if ("JDBC connection URI is required".equals(e.getMessage())) {
        throw new IllegalArgumentException("a JDBC catalog needs its database: --catalog-property uri=jdbc:...", e);
      }
      throw e;
    }
  }

  private static Map<String, String> readProperties(Path file) {
    Properties loaded = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      loaded.load(in);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("catalog config not found: " + file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read catalog config " + file, e);
    }
    Map<String, String> out = new LinkedHashMap<>();
    loaded.stringPropertyNames().stream().sorted().forEach(k -> out.put(k, loaded.getProperty(k)));
    return out;
  }
}
