package dev.floe.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code floe} command. Exit codes: 0 success, 1 the command failed (one line on stderr says
 * why), 2 bad usage (unknown flag, missing argument).
 */
@Command(
    name = "floe",
    mixinStandardHelpOptions = true,
    versionProvider = FloeCli.Version.class,
    description = "Land Kafka JSON in Apache Iceberg tables, with native JSON decoding and Parquet encoding.",
    subcommands = {DemoCommand.class, GenerateCommand.class, CommandLine.HelpCommand.class})
public final class FloeCli {
  public static final int EXIT_FAILED = 1;
  public static final int EXIT_USAGE = 2;

  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String... args) {
    CommandLine cli = new CommandLine(new FloeCli());
    cli.setExecutionExceptionHandler(
        (e, command, parsed) -> {
          PrintWriter err = command.getErr();
          err.println("floe " + command.getCommandName() + ": " + oneLine(e));
          err.flush();
          return EXIT_FAILED;
        });
    return cli.execute(args);
  }

  private static String oneLine(Throwable e) {
    String message = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    return message.replace('\n', ' ');
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = FloeCli.class.getPackage().getImplementationVersion();
      return new String[] {"floe " + (version != null ? version : "development build")};
    }
  }
}
