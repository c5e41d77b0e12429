package dev.floe.bench.e2e;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One contender run: the loaded topic to read, the fresh table to fill, and the settings every
 * contender shares.
 *
 * @param topic the loaded corpus
 * @param bootstrapServers the broker
 * @param catalog the embedded catalog (JDBC on SQLite) on {@code warehouse}
 * @param warehouse the warehouse folder (its {@code catalog.db} is the catalog's database)
 * @param table the table, created empty by the harness (absent for the bare-consume run)
 * @param group a consumer group no run used before
 * @param cadence when to commit
 * @param timeout how long the run may take before it is given up as failed
 */
public record RunSpec(
    LoadedTopic topic,
    String bootstrapServers,
    Catalog catalog,
    Path warehouse,
    TableIdentifier table,
    String group,
    CommitCadence cadence,
    Duration timeout) {

  /**
   * Commit every {@code interval} or every {@code records} records, whichever comes first (the
   * Kafka Connect sink only has the interval).
   */
  public record CommitCadence(Duration interval, long records) {}
}
