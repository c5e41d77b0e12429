package dev.floe.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.connect.InJvmTasks.RecordingContext;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;

/**
 * Table settings floe does not honour are refused by name when the task loads the table, not
 * ignored: a data file format other than Parquet, and in upsert mode id columns other than the
 * table's identifier fields.
 */
class TableSettingsTest extends InJvmTaskTest {
  private String startFailure(Map<String, String> config) {
    FloeIcebergSinkTask task = new FloeIcebergSinkTask();
    task.initialize(new RecordingContext());
    try {
      ConnectException e = assertThrows(ConnectException.class, () -> {
        task.start(config);
        task.open(List.of(InJvmTasks.TP));
      });
      return e.getMessage();
    } finally {
      task.stop();
    }
  }

  @Test
  void aFormatOtherThanParquetIsRefused() {
    TableIdentifier id = InJvmTasks.createTable(catalog, "orc");
    Map<String, String> config = InJvmTasks.config("orc", warehouse(), id, 10);
    config.put("iceberg.tables.write-props.write.format.default", "orc");
    String reason = startFailure(config);
    assertTrue(reason.contains("asks for orc data files"), reason);

    catalog.loadTable(id).updateProperties().set("write.format.default", "avro").commit();
    config.remove("iceberg.tables.write-props.write.format.default");
    reason = startFailure(config);
    assertTrue(reason.contains("asks for avro data files"), reason);
  }

  /**
   * Auto-created tables: id columns are the upsert key, so only upsert mode makes them identifier
   * fields (required). Without it the table is created as Iceberg's connector creates it, with
   * none, and schema-force-optional holds for every column (before, the id columns became
   * required identifier fields: records with a null id failed; found in review).
   */
  @Test
  void idColumnsBecomeIdentifierFieldsOfAutoCreatedTablesOnlyInUpsertMode() {
    String schema = "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        + "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
        + "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"}]}";
    for (boolean upsert : new boolean[] {false, true}) {
      TableIdentifier id = TableIdentifier.of("db", "created_" + upsert);
      Map<String, String> config = InJvmTasks.config("created", warehouse(), id, 10);
      config.put("iceberg.tables.auto-create-enabled", "true");
      config.put("iceberg.tables.default-id-columns", "id");
      config.put("iceberg.tables.schema-force-optional", "true");
      config.put("iceberg.tables.upsert-mode-enabled", Boolean.toString(upsert));
      config.put("floe.tables.schema", schema);
      Table created = new TableLoader(catalog, new ConnectorSettings(config), true).load(id.toString(), null);
      if (upsert) {
        assertEquals(java.util.Set.of("id"), created.schema().identifierFieldNames());
        assertTrue(created.schema().findField("id").isRequired());
      } else {
        assertEquals(java.util.Set.of(), created.schema().identifierFieldNames());
        assertTrue(created.schema().findField("id").isOptional(), "forced optional, as Iceberg's connector");
      }
    }
  }

  @Test
  void upsertIdColumnsOtherThanTheIdentifierFieldsAreRefused() {
    TableIdentifier id = InJvmTasks.createTable(catalog, "keyed");
    Table table = catalog.loadTable(id);
    table.updateSchema().setIdentifierFields("id").commit();
    Map<String, String> config = InJvmTasks.config("keyed", warehouse(), id, 10);
    config.put("iceberg.tables.upsert-mode-enabled", "true");
    config.put("iceberg.table." + id + ".id-columns", "name");
    String reason = startFailure(config);
    assertTrue(reason.contains("identifier fields [id] but the config's id columns are [name]"), reason);
  }

  /** A partitioning the configured schema refuses names the table and the keys (helper-53: it named neither). */
  @Test
  void aPartitioningTheConfiguredSchemaRefusesNamesTheTableAndTheKeys() {
    TableIdentifier id = TableIdentifier.of("db", "by_day");
    Map<String, String> config = InJvmTasks.config("by-day", warehouse(), id, 10);
    config.put("iceberg.tables.auto-create-enabled", "true");
    config.put("iceberg.tables.default-partition-by", "day(id)");
    config.put("floe.tables.schema", "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        + "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}");
    String reason = startFailure(config);
    assertTrue(reason.contains("table db.by_day cannot be created with partitioning 'day(id)' "
        + "(iceberg.tables.default-partition-by or iceberg.table.db.by_day.partition-by)"), reason);
    assertTrue(reason.contains("Invalid source type long for transform: day"), reason);
  }
}
