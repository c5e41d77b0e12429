package dev.floe.kafka.sink;

import org.apache.iceberg.exceptions.CleanableFailure;

/**
 * The table's stored Kafka offsets for this sink's partitions are not the ones it last saw:
 * another writer (a newer owner of the partitions, or a zombie) committed them. The commit is
 * refused instead of writing the same records twice; the sink drops the cycle and resumes from the
 * offsets the table holds. (Iceberg deletes the refused attempt's manifests: a cleanable failure.)
 */
public final class FencedException extends RuntimeException implements CleanableFailure {
  public FencedException(String message) {
    super(message);
  }
}
