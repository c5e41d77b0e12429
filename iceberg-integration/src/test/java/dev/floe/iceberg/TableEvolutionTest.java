package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.UnknownField;
import dev.floe.arrow.ValueShape;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A field evolution leaves out (here a key that differs from a column only in case) is planned
 * once, not in every batch: the table is refreshed again only when the schema changes or the
 * settled time has passed. And what the evolution metric counts.
 */
class TableEvolutionTest {
  @TempDir Path warehouse;

  @Test
  void aLeftOutFieldIsNotPlannedAgainInEveryBatch() throws Exception {
    Catalog catalog = Catalogs.embedded(warehouse);
    try (BufferAllocator allocator = new RootAllocator(); AutoCloseable closeCatalog = (AutoCloseable) catalog) {
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
      Table created = catalog.createTable(TableIdentifier.of("db", "t"), new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get())));
      AtomicInteger refreshes = new AtomicInteger();
      Table table = countingRefreshes(created, refreshes);
      AtomicLong clock = new AtomicLong();
      TableEvolution evolution = new TableEvolution(
          () -> table, t -> NativeFileWriterFactory.forTable(t, allocator), nanos -> {}, clock::get);
      NativeFileWriterFactory current = NativeFileWriterFactory.forTable(table, allocator);
      List<UnknownField> caseOnly = List.of(stringField("Name"));

      assertNull(evolution.evolve(current, caseOnly));
      assertEquals(1, refreshes.get(), "planned once");
      for (int batch = 0; batch < 5; batch++) {
        assertNull(evolution.evolve(current, caseOnly));
      }
      assertEquals(1, refreshes.get(), "the same left-out field in later batches is not planned again");

      clock.addAndGet(TableEvolution.SETTLED_NANOS);
      assertNull(evolution.evolve(current, caseOnly));
      assertEquals(2, refreshes.get(), "planned again once the settled time has passed");

      NativeFileWriterFactory next = evolution.evolve(current, List.of(stringField("Name"), stringField("city")));
      assertNotNull(next, "a field that can be added still is");
      assertEquals(Types.StringType.get(), next.schema().findType("city"));
      assertNull(next.schema().findField("Name"));
      assertEquals(3, refreshes.get());

      assertNull(evolution.evolve(next, caseOnly));
      assertEquals(4, refreshes.get(), "a new schema plans the field anew");
      assertNull(evolution.evolve(next, caseOnly));
      assertEquals(4, refreshes.get());
    }
  }

  /**
   * The cycle moves to a new writer when the table's writing properties change, as when its schema
   * does, but only a new schema counts as an evolution in the metric (helper-55: a codec changed
   * mid-cycle was counted).
   */
  @Test
  void aMoveForTablePropertiesAloneIsNotCountedAsAnEvolution() throws Exception {
    Catalog catalog = Catalogs.embedded(warehouse);
    try (BufferAllocator allocator = new RootAllocator(); AutoCloseable closeCatalog = (AutoCloseable) catalog) {
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
      Table table = catalog.createTable(TableIdentifier.of("db", "t"), new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get())));
      AtomicInteger evolutions = new AtomicInteger();
      TableEvolution evolution = new TableEvolution(
          () -> catalog.loadTable(TableIdentifier.of("db", "t")), t -> NativeFileWriterFactory.forTable(t, allocator),
          nanos -> evolutions.incrementAndGet());
      NativeFileWriterFactory first = NativeFileWriterFactory.forTable(table, allocator);
      try (NativeJsonDecoder decoder = NativeJsonDecoder.create(first.arrowSchema(), TableEvolution.DESCRIBING)) {
        CycleWriters cycle = new CycleWriters(first, decoder, null, evolution);
        try {
          table.updateProperties().set("write.parquet.compression-codec", "snappy").commit();
          cycle.followEvolvedTable();
          assertEquals(0, evolutions.get(), "a codec changed: a new writer, no schema evolution");
          table.updateSchema().addColumn("name", Types.StringType.get()).commit();
          cycle.followEvolvedTable();
          assertEquals(1, evolutions.get(), "a new schema is one");
        } finally {
          cycle.abort();
          cycle.closeOwnDecoders();
        }
      }
    }
  }

  /** A top-level field with string values, as a described decode reports it. */
  private static UnknownField stringField(String key) {
    return new UnknownField(key, List.of("string"), 3, OptionalInt.empty(), Optional.of(new ValueShape.Scalar("string")),
        OptionalInt.empty(), Optional.empty(), Optional.of(key));
  }

  /** {@code table}, counting the calls of {@link Table#refresh()} (each one a catalog round trip). */
  private static Table countingRefreshes(Table table, AtomicInteger refreshes) {
    return (Table) Proxy.newProxyInstance(TableEvolutionTest.class.getClassLoader(),
        new Class<?>[] {Table.class, HasTableOperations.class}, (proxy, method, args) -> {
          if (method.getName().equals("refresh")) {
            refreshes.incrementAndGet();
          }
          try {
            return method.invoke(table, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
