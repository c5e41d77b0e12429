package dev.floe.kafka.sink;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One job at a time on a thread of its own, its outcome taken by the thread that started it: how
 * the sink and the connector commit a sealed cycle while the next one fills. Only one thread
 * calls it.
 *
 * @param <T> what a job returns
 */
public final class BackgroundJob<T> implements AutoCloseable {
  private final ExecutorService thread;
  private final Function<Throwable, RuntimeException> failed;
  private Future<T> pending;

  /**
   * @param threadName the thread's name
   * @param failed what {@link #await()} throws for a job's failure (or an interrupt while waiting)
   */
  public BackgroundJob(String threadName, Function<Throwable, RuntimeException> failed) {
    this.failed = failed;
    this.thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts {@code job}; the one before must have been taken. */
  public void start(Callable<T> job) {
    if (pending != null) {
      throw new IllegalStateException("a job is still running");
    }
    pending = thread.submit(job);
  }

  /** Whether a job is running (or ended and not yet taken). */
  public boolean busy() {
    return pending != null;
  }

  /** The running job's outcome if it has ended (it is then taken), else null. */
  public T poll() {
    return pending != null && pending.isDone() ? await() : null;
  }

  /** Waits for the running job and takes its outcome; null if there is none. */
  public T await() {
    Future<T> waiting = pending;
    if (waiting == null) {
      return null;
    }
    pending = null;
    try {
      return waiting.get();
    } catch (ExecutionException e) {
      throw failed.apply(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failed.apply(e);
    }
  }

  /** Lets a running job end, then stops the thread. */
  @Override
  public void close() {
    thread.shutdown();
    try {
      thread.awaitTermination(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
