package dev.floe.kafka.sink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.List;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.exceptions.ServiceFailureException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;

/**
 * Which failures of a cycle an outage of the table's storage or catalog explains, so that the
 * cycle is worth writing again once it passes: I/O failures (Java's, Iceberg's, and an object
 * store client's, known by package since floe depends on none), a store or REST catalog that
 * answered 5xx, 408 or 429, a catalog database that lost its connection, a commit whose outcome
 * stayed unknown, anywhere in the chain of causes -- unless a cause says the request or the data
 * was wrong: an {@code IllegalArgumentException} or {@code IllegalStateException} (floe's and
 * Iceberg's "this is wrong", whatever caused it), JSON that does not parse, a file denied or
 * missing, a store's other 4xx, a location whose scheme no FileSystem on the classpath serves.
 * Those are no outage and stop the sink as before, and so does
 * anything else: a bad record, a refused commit, a dropped table. The Kafka sink and the Connect
 * connector both ride out what it calls an outage.
 */
public final class StorageFailures {
  /** Exceptions of these packages are the object stores' clients' (AWS, Google Cloud, Azure). */
  private static final List<String> STORE_CLIENTS = List.of("software.amazon.awssdk.", "com.google.cloud.", "com.azure.");
  /** Causes looked through, at most: a loop of causes must end. */
  private static final int MAX_DEPTH = 16;

  private StorageFailures() {}

  /** Whether {@code failure} or one of its causes is a storage or catalog outage's. */
  public static boolean isOutage(Throwable failure) {
    boolean outage = false;
    Throwable t = failure;
    for (int depth = 0; t != null && depth < MAX_DEPTH; depth++, t = t.getCause()) {
      if (isMistake(t)) {
        return false;
      }
      outage |= isUnavailable(t);
    }
    return outage;
  }

  /** A failure to reach the store or the catalog, or to hear back from it. */
  private static boolean isUnavailable(Throwable t) {
    return t instanceof IOException
        || t instanceof UncheckedIOException
        || t instanceof RuntimeIOException
        || t instanceof ServiceUnavailableException
        || t instanceof ServiceFailureException
        || t instanceof CommitStateUnknownException
        || t instanceof SQLTransientException
        || t instanceof SQLRecoverableException
        || fromStoreClient(t);
  }

  /** A failure that says the request or the data was wrong: trying again cannot help. */
  private static boolean isMistake(Throwable t) {
    return t instanceof IllegalArgumentException
        || t instanceof IllegalStateException
        || t instanceof AccessDeniedException
        || t instanceof NoSuchFileException
        || t instanceof NotDirectoryException
        || t instanceof FileAlreadyExistsException
        // a partition folder named after a long value (helper-83): the same name fails every time
        || t instanceof FileSystemException e && "File name too long".equals(e.getReason())
        || t.getClass().getName().startsWith("com.fasterxml.jackson.")
        // an IOException, but no outage: no FileSystem for the location's scheme (s3:// without
        // Iceberg's AWS jars, which Iceberg then tries through Hadoop; helper-75)
        || t.getClass().getName().equals("org.apache.hadoop.fs.UnsupportedFileSystemException")
        || (fromStoreClient(t) && isClientError(statusCode(t)) && !"RequestTimeout".equals(errorCode(t)));
  }

  /** 4xx but a timeout (408) or throttling (429): the request itself was refused. */
  private static boolean isClientError(int status) {
    return status >= 400 && status < 500 && status != 408 && status != 429;
  }

  private static boolean fromStoreClient(Throwable t) {
    String name = t.getClass().getName();
    return STORE_CLIENTS.stream().anyMatch(name::startsWith);
  }

  /**
   * An AWS service exception's error code ({@code awsErrorDetails().errorCode()}), or null: S3
   * answers a request whose body came too slowly 400 "RequestTimeout", which is no mistake of the
   * request (helper-71).
   */
  private static String errorCode(Throwable t) {
    try {
      Object details = t.getClass().getMethod("awsErrorDetails").invoke(t);
      return details == null ? null : String.valueOf(details.getClass().getMethod("errorCode").invoke(details));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /** A store client exception's HTTP status ({@code statusCode()}, as the AWS SDK's have), or -1. */
  private static int statusCode(Throwable t) {
    try {
      Method method = t.getClass().getMethod("statusCode");
      return method.getReturnType() == int.class ? (int) method.invoke(t) : -1;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return -1;
    }
  }
}
