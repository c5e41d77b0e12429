package dev.floe.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C (SIGINT), SIGTERM and SIGHUP (a closed terminal) taken as a request to stop while a
 * command runs: the command's own thread then finishes its work (the sink's last commit, its
 * summary) before the JVM exits, with the status a signal gives (130, 143, 129). As a shutdown hook
 * the stop came too late: the JVM's shutdown had begun, Iceberg's worker pool was stopped by a hook
 * of its own, and the sink's last commit failed unseen (helper-89). A second SIGINT or SIGTERM
 * exits at once; a restart resumes from what the tables hold. A JVM started with {@code -Xrs}
 * lets no signal be handled: it ends at the signal as after SIGKILL, which a restart recovers
 * from the same way.
 */
final class StopSignals implements AutoCloseable {
  private final Map<Signal, SignalHandler> previous = new LinkedHashMap<>();
  /** The first signal; each signal runs on a thread of its own, so two may race to be it. */
  private final AtomicReference<Signal> received = new AtomicReference<>();

  private StopSignals() {}

  /** Handles SIGINT, SIGTERM and SIGHUP by calling {@code stop} (once) until {@link #close()}. */
  static StopSignals install(Runnable stop) {
    StopSignals signals = new StopSignals();
    for (String name : new String[] {"INT", "TERM", "HUP"}) {
      try {
        Signal signal = new Signal(name);
        signals.previous.put(signal, Signal.handle(signal, s -> signals.onSignal(s, stop)));
      } catch (IllegalArgumentException notHandled) {
        // the JVM keeps this signal (-Xrs, or a platform without it)
      }
    }
    return signals;
  }

  private void onSignal(Signal signal, Runnable stop) {
    if (received.compareAndSet(null, signal)) {
      stop.run();
    } else if (!signal.getName().equals("HUP")) {
      Runtime.getRuntime().halt(exitCode(signal));
    }
    // A second SIGHUP is no request to hurry: a closed terminal sends one from the shell and one
    // from the kernel, and systemd follows SIGTERM with one (helper-93: halted mid-commit)
  }

  /** Whether a signal asked the command to stop. */
  boolean received() {
    return received.get() != null;
  }

  /** The exit status of a process the first signal stopped: 128 + its number, as shells report it. */
  int exitCode() {
    return exitCode(received.get());
  }

  private static int exitCode(Signal signal) {
    return 128 + signal.getNumber();
  }

  /** Gives the signals back to their previous handlers. */
  @Override
  public void close() {
    previous.forEach(Signal::handle);
  }
}
