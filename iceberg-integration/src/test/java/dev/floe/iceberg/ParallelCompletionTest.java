package dev.floe.iceberg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ParallelCompletionTest {

  @Test
  void resultsComeBackInTheItemsOrder() {
    List<Integer> items = IntStream.range(0, 50).boxed().toList();
    List<String> results = ParallelCompletion.map(items, i -> "file-" + i, r -> {});
    assertEquals(IntStream.range(0, 50).mapToObj(i -> "file-" + i).toList(), results);
  }

  @Test
  void itemsAreFinishedAtTheSameTimeOnSeveralCores() throws Exception {
    assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "needs two cores");
    // Each of the first two items waits until the other has started: one thread alone would
    // time out here.
    CountDownLatch bothStarted = new CountDownLatch(2);
    Set<String> threads = ConcurrentHashMap.newKeySet();
    List<Boolean> met = ParallelCompletion.map(List.of(0, 1), i -> {
      threads.add(Thread.currentThread().getName());
      bothStarted.countDown();
      try {
        return bothStarted.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }, r -> {});
    assertEquals(List.of(true, true), met);
    assertEquals(2, threads.size(), "threads: " + threads);
    assertTrue(threads.contains(Thread.currentThread().getName()), "the caller finishes items too");
  }

  @Test
  void everyItemIsAttemptedThenTheFinishedAreDiscardedAndTheFirstFailureIsThrown() {
    boolean[] finished = new boolean[6];
    List<Integer> discarded = new ArrayList<>();
    IllegalStateException thrown = assertThrows(IllegalStateException.class,
        () -> ParallelCompletion.map(List.of(0, 1, 2, 3, 4, 5), i -> {
          if (i == 1 || i == 4) {
            throw new IllegalStateException("cannot finish file " + i);
          }
          finished[i] = true;
          return i * 10;
        }, discarded::add));
    assertEquals("cannot finish file 1", thrown.getMessage());
    assertEquals(1, thrown.getSuppressed().length);
    assertEquals("cannot finish file 4", thrown.getSuppressed()[0].getMessage());
    assertArrayEquals(new boolean[] {true, false, true, true, false, true}, finished);
    assertEquals(List.of(0, 20, 30, 50), discarded, "the finished items' results, discarded in order");
  }

  @Test
  void aFailingDiscardIsSuppressedOnTheFailure() {
    IllegalStateException thrown = assertThrows(IllegalStateException.class,
        () -> ParallelCompletion.map(List.of(0, 1), i -> {
          if (i == 0) {
            throw new IllegalStateException("cannot finish file 0");
          }
          return i;
        }, r -> {
          throw new IllegalStateException("cannot delete file " + r);
        }));
    assertEquals("cannot finish file 0", thrown.getMessage());
    assertEquals("cannot delete file 1", thrown.getSuppressed()[0].getMessage());
  }

  @Test
  void checkedFailuresAreWrapped() {
    IllegalStateException thrown = assertThrows(IllegalStateException.class,
        () -> ParallelCompletion.map(List.of(0), i -> {
          throw sneaky(new java.io.IOException("disk full"));
        }, r -> {}));
    assertEquals("disk full", thrown.getCause().getMessage());
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
    throw (E) t;
  }
}
