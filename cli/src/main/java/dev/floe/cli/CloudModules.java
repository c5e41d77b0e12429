package dev.floe.cli;

import java.util.List;
import org.apache.iceberg.IcebergBuild;

/**
 * Iceberg's cloud modules, which floe does not bundle (README.md, "Tables on object storage"): when
 * a run fails because one is missing, what it says about it. Iceberg words that in several ways --
 * "Missing org.apache.iceberg.aws.s3.S3FileIO" for an io-impl or catalog-impl, a bare {@code
 * NoClassDefFoundError} for a dependency of one (failsafe, the SDK), or, when it falls back to
 * Hadoop for an {@code s3://} location, "No FileSystem for scheme" -- and none of them names the
 * jars to add.
 */
final class CloudModules {
  private record Module(List<String> signs, String jars, String fileIo) {}

  private static final String V = IcebergBuild.version();

  /** Checked in order: BigQuery's catalog is in a module of its own, under Google Cloud's package. */
  private static final List<Module> MODULES = List.of(
      new Module(List.of("org.apache.iceberg.gcp.bigquery"),
          "iceberg-bigquery-" + V + ".jar and iceberg-gcp-bundle-" + V + ".jar", "org.apache.iceberg.gcp.gcs.GCSFileIO"),
      new Module(List.of("org.apache.iceberg.aws.", "software.amazon.awssdk", "software/amazon/awssdk",
              "dev.failsafe", "dev/failsafe", "scheme \"s3\"", "scheme \"s3a\"", "scheme \"s3n\""),
          "iceberg-aws-" + V + ".jar, failsafe-3.3.2.jar and iceberg-aws-bundle-" + V + ".jar",
          "org.apache.iceberg.aws.s3.S3FileIO"),
      new Module(List.of("org.apache.iceberg.gcp.", "com.google.cloud", "com/google/cloud", "scheme \"gs\""),
          "iceberg-gcp-" + V + ".jar and iceberg-gcp-bundle-" + V + ".jar", "org.apache.iceberg.gcp.gcs.GCSFileIO"),
      new Module(List.of("org.apache.iceberg.azure.", "com.azure", "com/azure", "scheme \"abfs\"",
              "scheme \"abfss\"", "scheme \"wasb\"", "scheme \"wasbs\""),
          "iceberg-azure-" + V + ".jar and iceberg-azure-bundle-" + V + ".jar",
          "org.apache.iceberg.azure.adlsv2.ADLSFileIO"));

  private CloudModules() {}

  /**
   * What to add for the module {@code failure} (or a cause of it) shows missing, as a sentence to
   * append to its message; empty if it shows none (a store that answered with an error is no
   * missing module, though its exception's class names the SDK).
   */
  static String hint(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String text = t.getClass().getName() + ": " + t.getMessage();
      if (!showsSomethingMissing(t, text)) {
        continue;
      }
      for (Module module : MODULES) {
        if (module.signs().stream().anyMatch(text::contains)) {
          // Hadoop was asked for the location's scheme: the catalog's FileIO is Hadoop's (a JDBC or
          // Hadoop catalog's default), which the jars alone do not change (helper-76)
          String fileIo = text.contains("No FileSystem for scheme")
              ? ", and set --catalog-property io-impl=" + module.fileIo()
              : "";
          return " -- floe does not bundle Iceberg's cloud modules: add " + module.jars()
              + " with FLOE_CLASSPATH=a.jar:b.jar scripts/floe ..." + fileIo + " (README.md, Tables on object storage)";
        }
      }
    }
    return "";
  }

  private static boolean showsSomethingMissing(Throwable t, String text) {
    if (text.contains("Could not initialize class")) {
      return false; // the class is there; its static setup failed
    }
    return t instanceof ClassNotFoundException
        || t instanceof NoClassDefFoundError
        || text.contains("ClassNotFoundException")
        || text.contains("NoClassDefFoundError")
        || text.contains("Missing org.apache.iceberg.")
        || text.contains("No FileSystem for scheme");
  }
}
