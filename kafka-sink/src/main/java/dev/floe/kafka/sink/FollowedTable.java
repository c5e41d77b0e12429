package dev.floe.kafka.sink;

import dev.floe.iceberg.NativeFileWriterFactory;
import java.util.function.Function;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A table as a writer follows it from cycle to cycle (the sink's tables, the connector's): an
 * instance of its own, refreshed at each cycle's start, and the writer factory for its schema,
 * partition spec, format version and file-writing properties as of then. After an ALTER TABLE the
 * next cycle writes the new schema and spec (and codec, sizes...); columns are matched by field
 * id, so files written before and after are read alike. Used by one thread.
 */
public final class FollowedTable {
  private static final Logger LOG = LoggerFactory.getLogger(FollowedTable.class);

  private final Table watched;
  private final Function<Table, NativeFileWriterFactory> factories;
  private NativeFileWriterFactory factory;

  /**
   * @param watched an instance of the table only this object refreshes
   * @param factories a writer factory for a table's current schema and spec
   */
  public FollowedTable(Table watched, Function<Table, NativeFileWriterFactory> factories) {
    this.watched = watched;
    this.factories = factories;
    this.factory = factories.apply(watched);
  }

  /** The writer factory for the schema and spec as of the last {@link #refresh()}. */
  public NativeFileWriterFactory factory() {
    return factory;
  }

  /**
   * At a cycle's start: reads the table's current schema, spec and properties. When any that shape
   * the files changed, returns the factory for them (and {@link #factory()} does from now on); null
   * when nothing changed.
   */
  public NativeFileWriterFactory refresh() {
    watched.refresh();
    if (factory.isCurrentFor(watched) && factory.deletesInOlderSpecsOf(watched)) {
      return null;
    }
    factory = factories.apply(watched);
    LOG.info("table {} changed: writing schema {}, partition spec {} and its write properties as they are now, from"
        + " this cycle on", watched.name(), factory.schema().schemaId(), factory.spec().specId());
    return factory;
  }
}
