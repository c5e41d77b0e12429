package dev.floe.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.iceberg.Catalogs;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

/**
 * Routing by a field's value, as Iceberg's connector routes: a number or boolean value by its text
 * ({@code routeValue.toString()} of what JsonConverter reads), a value that is not a JSON object
 * refused (it has no field to route by) rather than dropped without a word; and the routing
 * settings {@code validate()} refuses.
 */
class RoutesTest {
  private static Routes routes(Map<String, String> extra) {
    Map<String, String> config = new HashMap<>();
    config.put("name", "routes");
    config.put("connector.class", FloeIcebergSinkConnector.class.getName());
    config.put("iceberg.catalog", Catalogs.EMBEDDED_NAME);
    Catalogs.embeddedProperties(Path.of("/tmp/unused-warehouse")).forEach((k, v) -> config.put("iceberg.catalog." + k, v));
    config.put("iceberg.tables.route-field", "kind");
    config.putAll(extra);
    return new Routes(new ConnectorSettings(config));
  }

  private static byte[] json(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void numbersAndBooleansRouteByTheirText() {
    Routes routes = routes(Map.of(
        "iceberg.tables", "db.nums,db.flags,db.text",
        "iceberg.table.db.nums.route-regex", "7|7\\.5|1000\\.0",
        "iceberg.table.db.flags.route-regex", "true",
        "iceberg.table.db.text.route-regex", "007"));
    assertEquals(List.of("db.nums"), routes.route(json("{\"kind\":7}")));
    assertEquals(List.of("db.nums"), routes.route(json("{\"kind\":7.50}")));
    assertEquals(List.of("db.nums"), routes.route(json("{\"kind\":1e3}")));
    assertEquals(List.of("db.flags"), routes.route(json("{\"a\":[1,{\"kind\":1}],\"kind\":true}")));
    assertEquals(List.of("db.text"), routes.route(json("{\"kind\":\"007\"}")), "a string stays as it is");
    assertEquals(List.of(), routes.route(json("{\"kind\":null}")), "no value: no table, as in Iceberg's connector");
    assertEquals(List.of(), routes.route(json("{\"other\":7}")));
  }

  /**
   * A Struct or Map value routes by its field's Java value's text, as Iceberg's connector routes it:
   * through JSON a FLOAT32 0.1 read as 0.10000000149011612 and a decimal lost its scale, so those
   * records went to no table where Iceberg's connector wrote them (helper-90).
   */
  @Test
  void structAndMapValuesRouteByTheirJavaValuesText() {
    Routes routes = routes(Map.of(
        "iceberg.tables", "db.f,db.d,db.obj",
        "iceberg.table.db.f.route-regex", "0\\.1",
        "iceberg.table.db.d.route-regex", "7\\.50",
        "iceberg.table.db.obj.route-regex", "\\{x=1\\}"));
    Schema floats = SchemaBuilder.struct().field("kind", Schema.FLOAT32_SCHEMA).build();
    assertEquals(List.of("db.f"), routes.route(new Struct(floats).put("kind", 0.1f), json("{\"kind\":0.10000000149011612}")));
    Schema decimals = SchemaBuilder.struct().field("kind", Decimal.schema(2)).build();
    assertEquals(List.of("db.d"), routes.route(new Struct(decimals).put("kind", new BigDecimal("7.50")), json("{\"kind\":7.5}")));
    Schema other = SchemaBuilder.struct().field("other", Schema.INT32_SCHEMA).build();
    assertEquals(List.of(), routes.route(new Struct(other).put("other", 1), json("{\"other\":1}")), "no such field: no table");
    assertEquals(List.of("db.obj"), routes.route(Map.of("kind", Map.of("x", 1)), json("{\"kind\":{\"x\":1}}")));
    assertEquals(List.of("db.f"), routes.route(Map.of("kind", 0.1), json("{\"kind\":0.1}")));
    // raw values route by their JSON
    assertEquals(List.of("db.f"), routes.route(json("{\"kind\":0.1}"), json("{\"kind\":0.1}")));
  }

  @Test
  void dynamicRoutingNamesTheTableByTheValuesText() {
    Routes routes = routes(Map.of("iceberg.tables.dynamic-enabled", "true"));
    assertEquals(List.of("db.t7"), routes.route(json("{\"kind\":\"DB.T7\"}")));
    assertEquals(List.of("42"), routes.route(json("{\"kind\":42}")));
  }

  @Test
  void dynamicAutoCreateOfRawJsonWithoutASchemaIsRefusedByValidation() {
    Map<String, String> config = new HashMap<>();
    config.put("iceberg.catalog.uri", "jdbc:sqlite::memory:");
    config.put("iceberg.tables.dynamic-enabled", "true");
    config.put("iceberg.tables.route-field", "kind");
    config.put("iceberg.tables.auto-create-enabled", "true");
    config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    assertEquals(List.of(), ConnectorSettings.problems(config), "structured values give new tables their schema");
    config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    List<String> problems = ConnectorSettings.problems(config);
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.getFirst().contains("needs 'floe.tables.schema'"), problems.toString());
    config.put("floe.tables.schema", "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]}");
    assertEquals(List.of(), ConnectorSettings.problems(config));
  }

  @Test
  void aValueThatIsNotAnObjectIsRefused() {
    Routes routes = routes(Map.of("iceberg.tables", "db.a", "iceberg.table.db.a.route-regex", ".*"));
    for (String value : List.of("not json", "[{\"kind\":\"a\"}]", "\"a\"", "")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> routes.route(json(value)), value);
      assertTrue(e.getMessage().contains("not a JSON object"), e.getMessage());
    }
  }
}
