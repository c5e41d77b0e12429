package dev.floe.kafka.sink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.List;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.exceptions.ServiceFailureException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;

/**
 * Which failures of a cycle an outage of the table's storage or catalog explains, so that the
 * cycle is worth writing again once it passes: I/O failures (Java's, Iceberg's, and a cloud SDK's,
 * known by package since floe does not depend on one), a catalog that answered 5xx, a catalog
 * database that lost its connection, a commit whose outcome stayed unknown. Anything else -- a bad
 * record, a refused commit, a dropped table, a bug -- is not, and stops the sink as before.
 */
public final class StorageFailures {
  /** Exceptions of these packages are the object stores' clients' (AWS, Google Cloud, Azure). */
  private static final List<String> STORE_CLIENTS = List.of("software.amazon.awssdk.", "com.google.cloud.", "com.azure.");
  /** Causes looked through, at most: a loop of causes must end. */
  private static final int MAX_DEPTH = 16;

  private StorageFailures() {}

  /** Whether {@code failure} or one of its causes is a storage or catalog outage's. */
  public static boolean isOutage(Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; t != null && depth < MAX_DEPTH; depth++, t = t.getCause()) {
      if (t instanceof IOException
          || t instanceof UncheckedIOException
          || t instanceof RuntimeIOException
          || t instanceof ServiceUnavailableException
          || t instanceof ServiceFailureException
          || t instanceof CommitStateUnknownException
          || t instanceof SQLTransientException
          || t instanceof SQLRecoverableException
          || fromStoreClient(t)) {
        return true;
      }
    }
    return false;
  }

  private static boolean fromStoreClient(Throwable t) {
    String name = t.getClass().getName();
    return STORE_CLIENTS.stream().anyMatch(name::startsWith);
  }
}
