package dev.floe.connect;

import static dev.floe.connect.InJvmTasks.TP;
import static dev.floe.connect.InJvmTasks.awaitCommitted;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.connect.InJvmTasks.RecordingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** With schema evolution, a task evolves its table from the Connect schemas of the Struct values it is given. */
class ConnectSchemaFollowedTest extends InJvmTaskTest {
  /** One instance for every record, as a converter's schema cache hands it out. */
  private static final Schema VALUE = SchemaBuilder.struct().name("value")
      .field("id", Schema.INT64_SCHEMA)
      .field("name", Schema.OPTIONAL_STRING_SCHEMA)
      .field("level", Schema.OPTIONAL_INT8_SCHEMA)
      .build();

  /**
   * A column dropped by an outside {@code ALTER TABLE} is added back with the type the Connect schema
   * gives it (INT8: int), when the same schema instance comes again; not from the shape of its JSON
   * (a number: long).
   */
  @Test
  void aColumnDroppedOutsideComesBackWithTheConnectSchemasType() throws Exception {
    TableIdentifier id = InJvmTasks.createTable(catalog, "followed");
    Map<String, String> config = InJvmTasks.config("followed", warehouse(), id, 2);
    config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    config.put(ConnectorSettings.EVOLVE_SCHEMA, "true");
    FloeIcebergSinkTask task = InJvmTasks.started(config, new RecordingContext());
    try {
      task.open(List.of(TP));
      task.put(records(0, 2));
      awaitCommitted(task, 2);
      assertEquals(Types.IntegerType.get(), catalog.loadTable(id).schema().findType("level"));

      Table outside = catalog.loadTable(id);
      outside.updateSchema().deleteColumn("level").commit();

      task.put(records(2, 4));
      awaitCommitted(task, 4);
    } finally {
      task.stop();
    }
    Table table = catalog.loadTable(id);
    assertEquals(Types.IntegerType.get(), table.schema().findType("level"), table.schema().toString());
    Map<Long, Object> levels = new TreeMap<>();
    try (CloseableIterable<Record> read = IcebergGenerics.read(table).build()) {
      read.forEach(r -> levels.put((Long) r.getField("id"), r.getField("level")));
    }
    Map<Long, Object> expected = new TreeMap<>();
    expected.put(0L, null); // written before the drop: the column added back is a new one
    expected.put(1L, null);
    expected.put(2L, 2);
    expected.put(3L, 3);
    assertEquals(expected, levels);
  }

  private static List<SinkRecord> records(long from, long to) {
    List<SinkRecord> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      Struct value = new Struct(VALUE).put("id", i).put("name", "n" + i).put("level", (byte) i);
      out.add(new SinkRecord(TP.topic(), TP.partition(), null, null, VALUE, value, i));
    }
    return out;
  }
}
