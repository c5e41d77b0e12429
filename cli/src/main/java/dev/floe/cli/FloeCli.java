package dev.floe.cli;

import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code floe} command. Exit codes: 0 success, 1 the command failed (one line on stderr says
 * why: a missing or unreadable file, a bad input line, an I/O or catalog error), 2 bad usage (an
 * unknown flag, a missing or invalid argument, flags that do not go together; one line on stderr).
 */
@Command(
    name = "floe",
    mixinStandardHelpOptions = true,
    versionProvider = FloeCli.Version.class,
    description = "Land Kafka JSON in Apache Iceberg tables, with native JSON decoding and Parquet encoding.",
    subcommands = {
      DemoCommand.class,
      GenerateCommand.class,
      WriteCommand.class,
      InspectCommand.class,
      SinkCommand.class,
      CommandLine.HelpCommand.class
    })
public final class FloeCli {
  public static final int EXIT_OK = 0;
  public static final int EXIT_FAILED = 1;
  public static final int EXIT_USAGE = 2;

  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String... args) {
    CommandLine cli = new CommandLine(new FloeCli());
    SinkCommand.addSettingOptions(cli.getSubcommands().get("sink").getCommandSpec());
    cli.setExecutionExceptionHandler(
        (e, command, parsed) -> {
          PrintWriter err = command.getErr();
          err.println(prefix(command) + oneLine(e) + CloudModules.hint(e));
          err.flush();
          return EXIT_FAILED;
        });
    // Usage errors: one line naming the problem and where the help is, not the whole usage text.
    cli.setParameterExceptionHandler(
        (e, arguments) -> {
          CommandLine command = e.getCommandLine();
          PrintWriter err = command.getErr();
          String message = oneLine(e).replaceFirst("^Error: ", "");
          if (e instanceof CommandLine.UnmatchedArgumentException unmatched && command.getParent() == null
              && !unmatched.getUnmatched().isEmpty() && !unmatched.getUnmatched().getFirst().startsWith("-")) {
            // a mistyped command: picocli says "Unmatched arguments from index 0"
            List<String> suggestions = unmatched.getSuggestions();
            message = "unknown command '" + unmatched.getUnmatched().getFirst() + "'"
                + (suggestions.isEmpty() ? "" : " (did you mean " + String.join(" or ", suggestions) + "?)");
          }
          err.println(prefix(command) + message + " (see '" + command.getCommandSpec().qualifiedName() + " --help')");
          err.flush();
          return EXIT_USAGE;
        });
    try {
      return cli.execute(args);
    } catch (LinkageError e) { // a class a module on the classpath needs is not (picocli handles only exceptions)
      System.err.println("floe: " + oneLine(e) + CloudModules.hint(e));
      return EXIT_FAILED;
    }
  }

  private static String prefix(CommandLine command) {
    return command.getCommandSpec().qualifiedName() + ": ";
  }

  /** The message, followed by its causes' messages where they add something (e.g. the I/O error). */
  static String oneLine(Throwable e) {
    StringBuilder line = new StringBuilder(message(e));
    for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
      if (cause.getMessage() == null && !(cause instanceof FileSystemException)) {
        continue; // its class name alone says nothing the line does not (a trailing ": TimeoutException")
      }
      String more = message(cause);
      if (!line.toString().contains(more)) {
        line.append(": ").append(more);
      }
    }
    return line.toString().strip().replace('\n', ' ');
  }

  private static String message(Throwable e) {
    if (e instanceof FileSystemException file && file.getReason() == null) {
      // Java's file errors say only the path: say what went wrong with it
      String what = switch (file) {
        case AccessDeniedException denied -> "permission denied";
        case NoSuchFileException missing -> "no such file or directory";
        case FileAlreadyExistsException exists -> "already exists";
        case NotDirectoryException notDirectory -> "not a directory";
        case DirectoryNotEmptyException notEmpty -> "directory not empty";
        default -> file.getClass().getSimpleName();
      };
      return file.getFile() + ": " + what + (file.getOtherFile() != null ? " (" + file.getOtherFile() + ")" : "");
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = FloeCli.class.getPackage().getImplementationVersion();
      return new String[] {"floe " + (version != null ? version : "development build")};
    }
  }
}
