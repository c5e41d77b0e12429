package dev.floe.kafka.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The route field reader against Jackson: the same value for any JSON it can be given, strict on escapes. */
class RouteFieldTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final RouteField kind = new RouteField("kind");

  private String read(String json) {
    return kind.read(ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8)));
  }

  /** What Jackson reads as the top-level string field "kind" (null if absent or not a string). */
  private static String jackson(String json) throws Exception {
    JsonNode node = JSON.readTree(json).get("kind");
    return node != null && node.isTextual() ? node.textValue() : null;
  }

  @Test
  void readsWhatJacksonReadsFromRandomMessagesWithEscapes() throws Exception {
    Random random = new Random(11);
    String[] pieces = {"a", "Z", " ", "\u00e9", "\u4e2d", "\ud83d\ude00", "\"", "\\", "/", "\n", "\t", "\u0001", "\u2028"};
    for (int i = 0; i < 2_000; i++) {
      StringBuilder value = new StringBuilder();
      for (int k = random.nextInt(6); k > 0; k--) {
        value.append(pieces[random.nextInt(pieces.length)]);
      }
      var object = JSON.createObjectNode();
      if (random.nextBoolean()) {
        object.putObject("nested").put("kind", "not this one").putArray("a").add("]}").add(1);
      }
      object.put("kind", value.toString());
      object.put("after", "x\"y");
      String json = JSON.writeValueAsString(object);
      if (random.nextBoolean()) { // escape every character, as some producers do
        json = json.replace("\"kind\":", "\"\\u006bind\":");
      }
      assertEquals(jackson(json), read(json), json);
    }
  }

  @Test
  void absentOrNotAStringIsNull() {
    assertNull(read("{\"id\":1}"));
    assertNull(read("{\"kind\":7}"));
    assertNull(read("{\"kind\":null}"));
    assertNull(read("[\"kind\"]"));
    assertNull(read("not json"));
    assertNull(read("{\"other\":{\"kind\":\"deep\"}}"));
  }

  @Test
  void anEscapeJsonDoesNotDefineIsMalformed() {
    for (String bad : new String[] {"\\uZZZZ", "\\u12", "\\x41", "ab\\"}) {
      RouteField.MalformedValueException e = assertThrows(
          RouteField.MalformedValueException.class, () -> read("{\"kind\":\"" + bad + "\"}"), bad);
      assertEquals(true, e.getMessage().startsWith("the value of 'kind' "), e.getMessage());
    }
  }
}
