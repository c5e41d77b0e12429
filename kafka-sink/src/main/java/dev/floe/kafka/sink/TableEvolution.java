package dev.floe.kafka.sink;

import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.UnknownField;
import dev.floe.iceberg.NativeFileWriterFactory;
import dev.floe.iceberg.SchemaEvolution;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Schema evolution for one table of a sink or a connector task ({@code evolve.schema}, {@code
 * iceberg.tables.evolve-schema-enabled}): evolves the table for what a batch carried and the
 * schema lacks ({@link SchemaEvolution}), and says when the cycle must move to a writer for the
 * new schema. Used by the one thread that decodes the table's batches.
 */
public final class TableEvolution {
  private static final Logger LOG = LoggerFactory.getLogger(TableEvolution.class);
  /** Decoders that describe what they meet, as evolution needs. */
  public static final JsonDecoderConfig DESCRIBING = JsonDecoderConfig.defaults().withDescribeUnknownFields(true);

  private final Supplier<Table> loader;
  private final Function<Table, NativeFileWriterFactory> factories;
  private final LongConsumer onEvolved;
  /** The table as evolution reads and changes it; loaded on first use. */
  private Table table;

  /**
   * @param loader loads an instance of the table of this object's own (refreshed here only)
   * @param factories a writer factory for a table's current schema and spec
   * @param onEvolved told, each time a batch moved its cycle to a new schema, how long the batch
   *     was held up: from its first decode to its last (the schema commits, the new writers and the
   *     decodes again), in nanoseconds (a metric)
   */
  public TableEvolution(
      Supplier<Table> loader, Function<Table, NativeFileWriterFactory> factories, LongConsumer onEvolved) {
    this.loader = loader;
    this.factories = factories;
    this.onEvolved = onEvolved;
  }

  /**
   * Evolves the table for {@code report} (if it asks anything) and returns a writer factory for
   * the table's schema when that is not the one {@code current} writes -- changed by this call or,
   * meanwhile, by another writer; null when the cycle can go on as it is.
   */
  NativeFileWriterFactory evolve(NativeFileWriterFactory current, List<UnknownField> report) {
    if (!SchemaEvolution.anythingToEvolve(report)) {
      return null;
    }
    if (table == null) {
      table = loader.get();
    }
    SchemaEvolution.evolve(table, report);
    if (current.writesCurrentSchemaOf(table)) {
      return null;
    }
    NativeFileWriterFactory next = factories.apply(table);
    LOG.info("table {}: the cycle goes on with schema {}", table.name(), next.schema().schemaId());
    return next;
  }

  /** After a batch that moved its cycle to a new schema: it was held up {@code nanos}. */
  void evolved(long nanos) {
    onEvolved.accept(nanos);
  }
}
