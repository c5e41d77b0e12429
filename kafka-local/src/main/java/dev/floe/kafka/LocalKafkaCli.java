package dev.floe.kafka;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code scripts/floe kafka start|stop|status --dir DIR}: a broker that outlives the command, for
 * people and scripts. {@code start} prints only the bootstrap address on stdout (so that {@code
 * BOOTSTRAP=$(scripts/floe kafka start)} works); everything else goes to stderr. Exit codes: 0 ok,
 * 1 failure, 2 usage, 3 {@code status} found no broker.
 */
public final class LocalKafkaCli {
  static final int OK = 0;
  static final int FAILED = 1;
  static final int USAGE = 2;
  static final int NOT_RUNNING = 3;

  private static final long STOP_TIMEOUT_SECONDS = 30;
  private static final String USAGE_TEXT =
      """
      usage: floe kafka start|stop|status --dir DIR
        start   start a detached single-node broker in DIR (data, log, pid) and print its
                bootstrap address; if one already runs there, print that one's
        stop    stop the broker of DIR (clean shutdown, killed after 30 s)
        status  print whether a broker runs in DIR (exit 3 if not) and its address
      """;

  private final PrintStream out;
  private final PrintStream err;

  LocalKafkaCli(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    System.exit(new LocalKafkaCli(System.out, System.err).run(args));
  }

  int run(String[] args) {
    if (args.length != 3 || !args[1].equals("--dir")) {
      err.print(USAGE_TEXT);
      return USAGE;
    }
    BrokerFiles files = new BrokerFiles(Path.of(args[2]));
    try {
      return switch (args[0]) {
        case "start" -> start(files);
        case "stop" -> stop(files);
        case "status" -> status(files);
        default -> {
          err.print(USAGE_TEXT);
          yield USAGE;
        }
      };
    } catch (RuntimeException e) {
      err.println("floe kafka " + args[0] + ": " + e.getMessage());
      return FAILED;
    }
  }

  private int start(BrokerFiles files) {
    Optional<ProcessHandle> running = BrokerPidFile.liveBroker(files);
    if (running.isPresent()) {
      err.println("a broker already runs in " + files.dir() + " (pid " + running.get().pid() + ")");
      out.println(bootstrapOf(files));
      return OK;
    }
    long start = System.nanoTime();
    LocalKafkaBroker broker = LocalKafkaBroker.builder(files.dir()).detached().start();
    err.printf(
        "broker started in %d ms: pid %d, data and broker.log in %s%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
        broker.pid().orElseThrow(),
        files.dir());
    out.println(broker.bootstrapServers());
    return OK;
  }

  private int stop(BrokerFiles files) {
    Optional<ProcessHandle> running = BrokerPidFile.liveBroker(files);
    if (running.isEmpty()) {
      err.println("no broker runs in " + files.dir());
      BrokerPidFile.delete(files);
      return OK;
    }
    ProcessHandle broker = running.get();
    broker.destroy();
    try {
      broker.onExit().get(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      err.println("the broker did not stop within " + STOP_TIMEOUT_SECONDS + " s; killing it");
      broker.destroyForcibly();
      broker.onExit().join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return FAILED;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
    BrokerPidFile.delete(files);
    err.println("stopped the broker in " + files.dir() + " (pid " + broker.pid() + ")");
    return OK;
  }

  private int status(BrokerFiles files) {
    Optional<ProcessHandle> running = BrokerPidFile.liveBroker(files);
    if (running.isEmpty()) {
      out.println("not running (" + files.dir() + ")");
      return NOT_RUNNING;
    }
    out.println(
        "running: pid " + running.get().pid() + ", bootstrap " + bootstrapOf(files) + ", dir "
            + files.dir());
    return OK;
  }

  private static String bootstrapOf(BrokerFiles files) {
    try {
      return Files.readString(files.bootstrapFile(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return "(unknown: " + files.bootstrapFile() + " unreadable)";
    }
  }
}
