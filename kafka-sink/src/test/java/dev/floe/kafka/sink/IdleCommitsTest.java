package dev.floe.kafka.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * When an idle table is committed without files: every n cycles behind in a row, and at the last;
 * due until its commit goes through.
 */
class IdleCommitsTest {
  @Test
  void dueAfterTheCyclesInARowOrAtTheLast() {
    IdleCommits<String> idle = new IdleCommits<>(3);
    assertEquals(0, idle.due("t", true, false));
    assertEquals(0, idle.due("t", true, false));
    assertEquals(3, idle.due("t", true, false), "the third cycle behind in a row");
    assertEquals(4, idle.due("t", true, false), "still due: its commit did not go through");
    idle.reset("t"); // it did
    assertEquals(0, idle.due("t", true, false), "counting again after its commit");
    assertEquals(0, idle.due("t", false, false), "not behind: the count starts over");
    assertEquals(0, idle.due("t", true, false));
    idle.reset("t"); // it got files
    assertEquals(0, idle.due("t", true, false));
    assertEquals(2, idle.due("t", true, true), "the last cycle: at once");
    assertEquals(0, idle.due("t", false, true), "but not when nothing moved past it");
    assertEquals(0, idle.due("other", true, false), "each table counts on its own");
  }

  @Test
  void zeroIsNever() {
    IdleCommits<String> never = new IdleCommits<>(0);
    for (int i = 0; i < 5; i++) {
      assertEquals(0, never.due("t", true, i == 4));
    }
    assertThrows(IllegalArgumentException.class, () -> new IdleCommits<>(-1));
  }
}
