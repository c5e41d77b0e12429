package dev.floe.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** A record's text in errors and logs: escaped and bounded (helper-83: a route value forged a log line). */
class ShownTextTest {
  @Test
  void controlCharactersAreEscapedAndLongTextIsCut() {
    assertEquals("'x\\n2030-01-01 INFO committed\\u001b[2K'", ShownText.quoted("x\n2030-01-01 INFO committed\u001b[2K"));
    assertEquals("'it\\'s a \\\\ path'", ShownText.quoted("it's a \\ path"));
    String shown = ShownText.quoted("v".repeat(9 << 20));
    assertEquals(ShownText.LONGEST + 2 + " (cut; 9437184 characters)".length(), shown.length(), shown.substring(0, 20));
  }
}
