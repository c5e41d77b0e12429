package dev.floe.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The per-thread CPU accounting: parsing stat lines, naming roles, and counting a live thread. */
class ThreadCpuTest {
  @Test
  void readsUserPlusSystemTimeAfterANameWithSpacesAndParentheses() {
    String stat = "4242 (GC Thread#0) x) S 1 2 3 0 -1 4194560 8172 4962713 0 568 37 5 39323 2180 20 0 1 0 5849";
    assertEquals(42, ThreadCpu.cpuTicks(stat));
    assertEquals("GC Thread#0) x", ThreadCpu.comm(stat));
  }

  @Test
  void rolesComeFromThreadNames() {
    assertEquals("connect-task", ThreadCpu.role("task-thread-flo"));
    assertEquals("decode", ThreadCpu.role("floe-connect-de"));
    assertEquals("writer", ThreadCpu.role("floe-writer-ben"));
    assertEquals("encode", ThreadCpu.role("floe-encode-ahe"));
    assertEquals("encode", ThreadCpu.role("floe-encode-0"));
    assertEquals("commit", ThreadCpu.role("floe-connect-co"));
    assertEquals("jit", ThreadCpu.role("C2 CompilerThre"));
    assertEquals("gc", ThreadCpu.role("G1 Conc#0"));
    assertEquals("main", ThreadCpu.role("java"));
    assertEquals("other", ThreadCpu.role("kafka-producer-"));
  }

  @Test
  void countsAThreadBornAndEndedDuringTheRun() throws InterruptedException {
    ThreadCpu cpu = ThreadCpu.start(ProcessHandle.current().pid());
    Thread busy = Thread.ofPlatform().name("floe-writer-test").start(() -> {
      long until = System.nanoTime() + 400_000_000L;
      long x = 0;
      while (System.nanoTime() < until) {
        x += Long.numberOfTrailingZeros(x + System.nanoTime());
      }
      assertTrue(x >= 0);
    });
    busy.join();
    Thread.sleep(250); // at least one sample after the thread ended: its time is then "exited" or "writer"
    Map<String, Double> used = cpu.stop();
    double writer = used.getOrDefault("writer", 0.0);
    double exited = used.getOrDefault("exited", 0.0);
    assertTrue(writer + exited >= 0.2, "a 0.4 s busy loop: " + used);
    assertTrue(writer >= 0.1, "sampled while it ran: " + used);
    assertTrue(used.get("total") >= writer + exited - 0.02, used.toString());
  }
}
