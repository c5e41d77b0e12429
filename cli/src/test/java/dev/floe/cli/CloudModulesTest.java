package dev.floe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.junit.jupiter.api.Test;

/**
 * The jars named for a missing cloud module, for each way Iceberg 1.11 words one missing (the
 * messages as helper-75 saw them running floe without Iceberg's AWS jars), and none for a store's
 * own error.
 */
class CloudModulesTest {
  private static final String AWS = "add iceberg-aws-1.11.0.jar, failsafe-3.3.2.jar and iceberg-aws-bundle-1.11.0.jar";

  @Test
  void aMissingFileIoOrCatalogNamesItsModulesJars() {
    assertTrue(CloudModules.hint(new IllegalArgumentException("Cannot initialize FileIO implementation "
        + "org.apache.iceberg.aws.s3.S3FileIO: Cannot find constructor for interface org.apache.iceberg.io.FileIO\n"
        + "\tMissing org.apache.iceberg.aws.s3.S3FileIO [java.lang.ClassNotFoundException: "
        + "org.apache.iceberg.aws.s3.S3FileIO]")).contains(AWS));
    assertTrue(CloudModules.hint(new IllegalArgumentException("Cannot initialize Catalog implementation "
        + "org.apache.iceberg.gcp.bigquery.BigQueryMetastoreCatalog: Cannot find constructor\n\tMissing "
        + "org.apache.iceberg.gcp.bigquery.BigQueryMetastoreCatalog")).contains("add iceberg-bigquery-1.11.0.jar"));
    assertTrue(CloudModules.hint(new IllegalArgumentException("Missing org.apache.iceberg.azure.adlsv2.ADLSFileIO"))
        .contains("add iceberg-azure-1.11.0.jar and iceberg-azure-bundle-1.11.0.jar"));
  }

  @Test
  void aMissingDependencyOrFileSystemNamesTheModulesJars() {
    assertTrue(CloudModules.hint(new NoClassDefFoundError("dev/failsafe/FailsafeException")).contains(AWS));
    String noFileSystem = CloudModules.hint(new RuntimeIOException(new IOException("No FileSystem for scheme \"s3\""),
        "Failed to get file system for path: %s", "s3://b/wh/t/metadata/v1.metadata.json"));
    assertTrue(noFileSystem.contains(AWS), noFileSystem);
    assertTrue(noFileSystem.contains("set --catalog-property io-impl=org.apache.iceberg.aws.s3.S3FileIO"), noFileSystem);
    assertTrue(CloudModules.hint(new RuntimeException("writing failed", new NoClassDefFoundError(
        "software/amazon/awssdk/services/s3/S3Client"))).contains(AWS));
  }

  @Test
  void aStoresOwnErrorNamesNothing() {
    assertEquals("", CloudModules.hint(new RuntimeException(
        "software.amazon.awssdk.services.s3.model.S3Exception: (Service: S3, Status Code: 503)")));
    assertEquals("", CloudModules.hint(new IllegalArgumentException("Cannot initialize FileIO implementation "
        + "com.example.MyFileIO: Missing com.example.MyFileIO")));
    assertEquals("", CloudModules.hint(new NoClassDefFoundError(
        "Could not initialize class software.amazon.awssdk.services.s3.S3Client")), "the jars are there");
  }
}
