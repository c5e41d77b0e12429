package dev.floe.kafka.sink;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParseException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.AccessDeniedException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

class StorageFailuresTest {
  @Test
  void outagesOfTheStoreOrTheCatalog() {
    assertTrue(StorageFailures.isOutage(new SinkException("writing failed",
        S3Exception.builder().statusCode(503).message("Slow Down").build())));
    assertTrue(StorageFailures.isOutage(S3Exception.builder().statusCode(429).build()));
    assertTrue(StorageFailures.isOutage(S3Exception.builder().statusCode(400)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode("RequestTimeout").build()).build()));
    assertTrue(StorageFailures.isOutage(SdkClientException.create("Unable to execute HTTP request",
        new ConnectException("Connection refused"))));
    assertTrue(StorageFailures.isOutage(new RuntimeException(new UncheckedIOException(new IOException("reset")))));
    assertTrue(StorageFailures.isOutage(new RuntimeIOException(new IOException("Read timed out"))));
    assertTrue(StorageFailures.isOutage(new ServiceUnavailableException("503 from the REST catalog")));
    assertTrue(StorageFailures.isOutage(new SinkException("stayed unknown",
        new CommitStateUnknownException(new RuntimeException("504")))));
  }

  @Test
  void mistakesAndEverythingElseAreNot() {
    // a partition folder named after a long value fails the same way every time (helper-83)
    assertFalse(StorageFailures.isOutage(new java.io.UncheckedIOException("cannot create the directory of x",
        new java.nio.file.FileSystemException("/wh/t/data/kind=aaaa", null, "File name too long"))));
    assertFalse(StorageFailures.isOutage(S3Exception.builder().statusCode(403).message("Access Denied").build()));
    assertFalse(StorageFailures.isOutage(S3Exception.builder().statusCode(404).message("NoSuchBucket").build()));
    assertFalse(StorageFailures.isOutage(S3Exception.builder().statusCode(400)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode("InvalidArgument").build()).build()));
    assertFalse(StorageFailures.isOutage(new UncheckedIOException("cannot create /w",
        new AccessDeniedException("/w"))));
    assertFalse(StorageFailures.isOutage(new UncheckedIOException("libfloe returned an unreadable file summary",
        new JsonParseException(null, "Unexpected character"))));
    assertFalse(StorageFailures.isOutage(new IllegalStateException("libfloe's footer", new IOException("corrupt"))));
    assertFalse(StorageFailures.isOutage(new CommitFailedException("conflict")));
    assertFalse(StorageFailures.isOutage(new NoSuchTableException("gone")));
    assertFalse(StorageFailures.isOutage(new SinkException("bad record", null)));
    assertFalse(StorageFailures.isOutage(new FencedException("fenced")));
    assertFalse(StorageFailures.isOutage(new RuntimeException("no cause")));
    // s3:// without Iceberg's AWS jars: Iceberg falls back to Hadoop, which has no FileSystem for it
    assertFalse(StorageFailures.isOutage(new org.apache.iceberg.exceptions.RuntimeIOException(
        new org.apache.hadoop.fs.UnsupportedFileSystemException("No FileSystem for scheme \"s3\""),
        "Failed to get file system for path: %s", "s3://b/wh/t/metadata/v1.metadata.json")));
  }
}
