package dev.floe.kafka.sink;

import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A real catalog whose tables, as loaded or created through it, commit through operations a test
 * wraps: to make a table's commits fail, hang, or answer that their outcome is unknown.
 */
final class WrappingCatalog implements Catalog {
  private final Catalog delegate;
  private final BiFunction<TableIdentifier, TableOperations, TableOperations> wrap;

  WrappingCatalog(Catalog delegate, BiFunction<TableIdentifier, TableOperations, TableOperations> wrap) {
    this.delegate = delegate;
    this.wrap = wrap;
  }

  private Table wrapped(TableIdentifier id, Table table) {
    return new BaseTable(wrap.apply(id, ((HasTableOperations) table).operations()), table.name());
  }

  @Override
  public Table loadTable(TableIdentifier id) {
    return wrapped(id, delegate.loadTable(id));
  }

  @Override
  public Table createTable(TableIdentifier id, Schema schema, PartitionSpec spec, Map<String, String> properties) {
    return wrapped(id, delegate.createTable(id, schema, spec, properties));
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    return delegate.listTables(namespace);
  }

  @Override
  public boolean dropTable(TableIdentifier id, boolean purge) {
    return delegate.dropTable(id, purge);
  }

  @Override
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    delegate.renameTable(from, to);
  }

  @Override
  public String name() {
    return delegate.name();
  }
}
