package dev.floe.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C (SIGINT) and SIGTERM taken as a request to stop while a command runs: the command's own
 * thread then finishes its work (the sink's last commit, its summary) before the JVM exits, with
 * the status a signal gives (130, 143). As a shutdown hook the stop came too late: the JVM's
 * shutdown had begun, Iceberg's worker pool was stopped by a hook of its own, and the sink's last
 * commit failed unseen (helper-89). A second signal exits at once; a restart resumes from what the
 * tables hold. Where the JVM does not let a signal be handled ({@code -Xrs}), the signal is left
 * to the JVM.
 */
final class StopSignals implements AutoCloseable {
  private final Map<Signal, SignalHandler> previous = new LinkedHashMap<>();
  private volatile Signal received;

  private StopSignals() {}

  /** Handles SIGINT and SIGTERM by calling {@code stop} (once) until {@link #close()}. */
  static StopSignals install(Runnable stop) {
    StopSignals signals = new StopSignals();
    for (String name : new String[] {"INT", "TERM"}) {
      try {
        Signal signal = new Signal(name);
        signals.previous.put(signal, Signal.handle(signal, s -> signals.onSignal(s, stop)));
      } catch (IllegalArgumentException notHandled) {
        // the JVM keeps this signal (-Xrs, or a platform without it): its shutdown hooks apply
      }
    }
    return signals;
  }

  private void onSignal(Signal signal, Runnable stop) {
    if (received != null) {
      Runtime.getRuntime().halt(exitCode(signal));
    }
    received = signal;
    stop.run();
  }

  /** Whether a signal asked the command to stop. */
  boolean received() {
    return received != null;
  }

  /** The exit status of a process a signal stopped: 128 + its number, as shells report it. */
  int exitCode() {
    return exitCode(received);
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
