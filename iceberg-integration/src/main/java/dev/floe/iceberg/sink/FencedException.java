package dev.floe.iceberg.sink;

/**
 * The table's stored Kafka offsets for this sink's partitions are not the ones it last saw:
 * another writer (a newer owner of the partitions, or a zombie) committed them. The sink stops
 * instead of writing the same records twice.
 */
public final class FencedException extends RuntimeException {
  public FencedException(String message) {
    super(message);
  }
}
