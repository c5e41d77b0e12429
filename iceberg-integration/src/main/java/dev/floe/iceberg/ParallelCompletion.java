package dev.floe.iceberg;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Finishes a task writer's files on several threads at once. Finishing a file writes out its
 * buffered row group and footer: on a local warehouse the copy of the whole file into the page
 * cache, on object storage the upload of its last part. One file after another, a commit waited
 * for each in turn on one core while the others idled.
 *
 * <p>The threads are short-lived platform threads, one per core at most, the calling thread being
 * one of them: nothing outlives the call, so no pool keeps a class loader alive in Flink or Kafka
 * Connect. Each item is finished by exactly one thread, so items need not be thread-safe, only
 * independent of each other.
 */
final class ParallelCompletion {
  private ParallelCompletion() {}

  /**
   * Applies {@code finish} to every item, on up to as many threads as the machine has cores, and
   * returns the results in the items' order. Every item is attempted even when some fail; the
   * results of those that succeeded are then handed to {@code discard} (on the calling thread;
   * its failures are suppressed), and the first failure (in item order) is thrown, with the
   * others suppressed on it.
   */
  static <T, R> List<R> map(
      List<T> items, Function<? super T, ? extends R> finish, Consumer<? super R> discard) {
    int count = items.size();
    Object[] results = new Object[count];
    Throwable[] failures = new Throwable[count];
    AtomicInteger next = new AtomicInteger();
    Runnable worker = () -> {
      for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
        try {
          results[i] = finish.apply(items.get(i));
        } catch (Throwable t) {
          failures[i] = t;
        }
      }
    };
    int helpers = Math.min(count, Runtime.getRuntime().availableProcessors()) - 1;
    List<Thread> started = new ArrayList<>();
    for (int h = 0; h < helpers; h++) {
      started.add(Thread.ofPlatform().name("floe-file-finish").daemon().start(worker));
    }
    worker.run();
    joinAll(started);
    @SuppressWarnings("unchecked")
    List<R> finished = (List<R>) Arrays.asList(results);
    Throwable first = firstFailure(failures);
    if (first != null) {
      for (int i = 0; i < count; i++) {
        if (failures[i] == null) {
          try {
            discard.accept(finished.get(i));
          } catch (RuntimeException e) {
            first.addSuppressed(e);
          }
        }
      }
      rethrow(first);
    }
    return finished;
  }

  /** Waits for every helper even if interrupted: they are inside native calls on our files. */
  private static void joinAll(List<Thread> threads) {
    boolean interrupted = false;
    for (Thread thread : threads) {
      while (true) {
        try {
          thread.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The first failure, with the later ones suppressed on it; null if none. */
  private static Throwable firstFailure(Throwable[] failures) {
    Throwable first = null;
    for (Throwable failure : failures) {
      if (failure == null) {
        continue;
      }
      if (first == null) {
        first = failure;
      } else {
        first.addSuppressed(failure);
      }
    }
    return first;
  }

  private static void rethrow(Throwable failure) {
    if (failure instanceof RuntimeException e) {
      throw e;
    }
    if (failure instanceof Error e) {
      throw e;
    }
    throw new IllegalStateException("finishing a file failed", failure);
  }
}
