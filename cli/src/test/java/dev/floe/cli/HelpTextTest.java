package dev.floe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Each command's help ends with examples a user can copy (whole lines, flags the command has), and
 * says what its exit codes mean.
 */
class HelpTextTest {
  @Test
  void examplesAreWholeCommandLinesAndExitCodesAreSaid() {
    CommandLine cli = new CommandLine(new FloeCli());
    SinkCommand.addSettingOptions(cli.getSubcommands().get("sink").getCommandSpec());
    for (String name : List.of("write", "sink")) {
      String help = cli.getSubcommands().get(name).getUsageMessage();
      List<String> examples = examples(help);
      assertTrue(examples.size() >= 2 && examples.getFirst().startsWith("  floe " + name + " "), name + ": " + help);
      List<String> broken = new ArrayList<>();
      for (int i = 0; i < examples.size(); i++) {
        String line = examples.get(i);
        boolean continued = i > 0 && examples.get(i - 1).endsWith(" \\");
        // a line wrapped at the help's width starts at the margin, not where a command or its continuation does
        if (!(continued ? line.startsWith("      --") : line.startsWith("  floe "))) {
          broken.add(line);
        }
      }
      assertEquals(List.of(), broken, name + "'s examples, as a shell would not run them");
      for (List<String> command : commands(examples)) {
        CommandLine fresh = new CommandLine(new FloeCli());
        SinkCommand.addSettingOptions(fresh.getSubcommands().get("sink").getCommandSpec());
        fresh.parseArgs(command.subList(1, command.size()).toArray(String[]::new)); // a misspelled flag throws
      }
      assertTrue(help.contains("Exit codes: 0 "), name);
    }
  }

  /** The example lines joined into commands and split into words as a shell would (single quotes only). */
  private static List<List<String>> commands(List<String> examples) {
    List<List<String>> out = new ArrayList<>();
    StringBuilder command = new StringBuilder();
    for (String line : examples) {
      boolean continues = line.endsWith(" \\");
      command.append(continues ? line.substring(0, line.length() - 2) : line).append(' ');
      if (!continues) {
        List<String> words = new ArrayList<>();
        java.util.regex.Matcher word = java.util.regex.Pattern.compile("'([^']*)'|(\\S+)").matcher(command);
        while (word.find()) {
          words.add(word.group(1) != null ? word.group(1) : word.group(2));
        }
        out.add(words);
        command.setLength(0);
      }
    }
    return out;
  }

  /** The lines after "Examples:" up to the next blank line. */
  private static List<String> examples(String help) {
    List<String> lines = List.of(help.split("\n"));
    int from = lines.indexOf("Examples:");
    assertTrue(from >= 0, help);
    List<String> out = new ArrayList<>();
    for (String line : lines.subList(from + 1, lines.size())) {
      if (line.isBlank()) {
        break;
      }
      out.add(line.stripTrailing());
    }
    return out;
  }
}
