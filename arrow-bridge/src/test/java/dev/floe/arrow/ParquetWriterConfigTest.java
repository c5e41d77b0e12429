package dev.floe.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The writer's defaults and names are libfloe's: one file, one name per setting. */
class ParquetWriterConfigTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** libfloe/writer-defaults.json, as the Rust side compiles it in. */
  private static JsonNode defaultsFile() throws Exception {
    Path file = Path.of(System.getProperty("user.dir")).resolveSibling("libfloe").resolve("writer-defaults.json");
    return JSON.readTree(Files.readString(file));
  }

  private static String snake(String camel) {
    return camel.replaceAll("([A-Z])", "_$1").toLowerCase(java.util.Locale.ROOT);
  }

  @Test
  void everyComponentIsASettingOfTheDefaultsFileUnderItsSnakeCaseName() throws Exception {
    List<String> components = new ArrayList<>();
    Arrays.stream(ParquetWriterConfig.class.getRecordComponents()).forEach(c -> components.add(snake(c.getName())));
    components.add("version");
    List<String> keys = new ArrayList<>();
    defaultsFile().fieldNames().forEachRemaining(keys::add);
    assertEquals(new TreeSet<>(keys), new TreeSet<>(components));
  }

  @Test
  void defaultsAreTheFilesAndTheBlobCarriesThemUnderTheSameNames() throws Exception {
    JsonNode file = defaultsFile();
    JsonNode blob = JSON.readTree(ParquetWriterConfig.defaults().toJsonBytes());
    assertEquals(file, blob, "the default config's blob is the defaults file");
    ParquetWriterConfig d = ParquetWriterConfig.defaults();
    assertEquals("zstd", d.codec());
    assertNull(d.level());
    assertEquals(128L << 20, d.rowGroupBytes());
    assertEquals(ParquetWriterConfig.StatisticsLevel.PAGE, d.statistics());
    JsonNode changed = JSON.readTree(ParquetWriterConfig.builder().pageRowLimit(700).level(9).build().toJsonBytes());
    assertEquals(700, changed.get("page_row_limit").asLong());
    assertEquals(9, changed.get("level").asInt());
  }
}
