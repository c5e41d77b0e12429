package dev.floe.iceberg;

import dev.floe.arrow.JsonDecoderConfig;
import dev.floe.arrow.UnknownField;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
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
  /**
   * How long a field evolution left out stays settled: a user may meanwhile change the table so
   * that it fits (drop the column whose name differs only in case), and nothing else would tell.
   */
  static final long SETTLED_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final Supplier<Table> loader;
  private final Function<Table, NativeFileWriterFactory> factories;
  private final LongConsumer onEvolved;
  private final LongSupplier nanoClock;
  /** The table as evolution reads and changes it; loaded on first use. */
  private Table table;
  /**
   * Fields of reports that evolution changed nothing for (left out, or a widening Iceberg does not
   * allow), at schema {@link #settledSchemaId}: a producer sends them in every batch, and planning
   * them again would cost a table refresh and a warning per batch.
   */
  private final Set<UnknownField> settled = new HashSet<>();
  private int settledSchemaId = -1;
  private long settledSince;

  /**
   * @param loader loads an instance of the table of this object's own (refreshed here only)
   * @param factories a writer factory for a table's current schema and spec
   * @param onEvolved told, each time a batch moved its cycle to a new schema, how long the batch
   *     was held up: from its first decode to its last (the schema commits, the new writers and the
   *     decodes again), in nanoseconds (a metric)
   */
  public TableEvolution(
      Supplier<Table> loader, Function<Table, NativeFileWriterFactory> factories, LongConsumer onEvolved) {
    this(loader, factories, onEvolved, System::nanoTime);
  }

  TableEvolution(Supplier<Table> loader, Function<Table, NativeFileWriterFactory> factories, LongConsumer onEvolved,
      LongSupplier nanoClock) {
    this.loader = loader;
    this.factories = factories;
    this.onEvolved = onEvolved;
    this.nanoClock = nanoClock;
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
    List<UnknownField> open = unsettled(current, report);
    if (open.isEmpty()) {
      return null;
    }
    SchemaEvolution.evolve(loaded(), open);
    if (current.isCurrentFor(table)) {
      open.forEach(field -> settled.add(identity(field))); // nothing changed for any of them
      return null;
    }
    return movedOn(current);
  }

  /** The fields of {@code report} not settled at {@code current}'s schema. */
  private List<UnknownField> unsettled(NativeFileWriterFactory current, List<UnknownField> report) {
    long now = nanoClock.getAsLong();
    if (settledSchemaId != current.schema().schemaId() || now - settledSince >= SETTLED_NANOS) {
      settled.clear();
      settledSchemaId = current.schema().schemaId();
      settledSince = now;
    }
    return report.stream().filter(field -> !settled.contains(identity(field))).toList();
  }

  /** A reported field without what varies between batches of the same field (its counts and kinds). */
  private static UnknownField identity(UnknownField field) {
    return new UnknownField(field.path(), List.of(), 0, field.parentId(), field.shape(), field.fieldId(),
        field.widenTo(), field.key());
  }

  /**
   * Reads the table again and returns a writer factory for its schema when that is not the one
   * {@code current} writes; null when it is. For a batch whose records another thread evolved the
   * table for (a Connect task, from a record's schema): they must be decoded for the new schema
   * even where they carry nothing the decoder would report, such as a null for a column that was
   * required.
   */
  NativeFileWriterFactory current(NativeFileWriterFactory current) {
    loaded().refresh();
    return current.isCurrentFor(table) ? null : movedOn(current);
  }

  /** This object's instance of the table, loaded on first use. */
  private Table loaded() {
    if (table == null) {
      table = loader.get();
    }
    return table;
  }

  /**
   * A writer factory for the table's schema as read last, for the cycle {@code current} wrote to
   * go on with: deleting by key where {@code current} did (the commit checks one reach for the
   * whole cycle).
   */
  private NativeFileWriterFactory movedOn(NativeFileWriterFactory current) {
    NativeFileWriterFactory next = factories.apply(table).deletingNoWiderThan(current);
    LOG.info("table {}: the cycle goes on with schema {}", table.name(), next.schema().schemaId());
    return next;
  }

  /** After a batch that moved its cycle to a new schema: it was held up {@code nanos}. */
  void evolved(long nanos) {
    onEvolved.accept(nanos);
  }
}
