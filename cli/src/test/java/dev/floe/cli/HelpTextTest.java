package dev.floe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Each command's help ends with examples a user can copy, and says what its exit codes mean. */
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
      assertTrue(help.contains("Exit codes: 0 "), name);
    }
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
