package dev.floe.cli;

import dev.floe.kafka.sink.KafkaIcebergSink;
import dev.floe.kafka.sink.SinkConfig;
import dev.floe.kafka.sink.SinkException;
import dev.floe.kafka.sink.SinkSettings;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.catalog.Catalog;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code floe sink}: the long-running Kafka -> Iceberg sink ({@link KafkaIcebergSink}), exactly
 * once, until interrupted (Ctrl-C commits what was consumed) or, with {@code --stop-at-end}, until
 * the end of its topics.
 */
@Command(
    name = "sink",
    mixinStandardHelpOptions = true,
    description = {
      "Consume Kafka topics into Iceberg tables, exactly once: each commit stores the consumed offsets in the"
          + " table's snapshot summary, and a restarted sink resumes from there.",
      "Routes: --route TOPIC=NAMESPACE.TABLE (repeatable), or --topic T... with --route-field FIELD and"
          + " --route-value REGEX=NAMESPACE.TABLE rules.",
      "The flags after the catalog's are the sink's settings (dev.floe.kafka.sink.SinkSettings): --commit-interval"
          + " sets commit.interval."
    },
    footer = {
      "",
      "Examples:",
      "  floe sink --bootstrap localhost:9092 --route bids=nexmark.bids \\",
      "      --warehouse wh --schema bids.schema.json \\",
      "      --partition-by 'bucket(8,auction)' --stop-at-end",
      "  floe sink --bootstrap localhost:9092 --catalog-config rest.properties \\",
      "      --topic events --route-field kind --route-value '^bid$=nexmark.bids' \\",
      "      --route-value '.*=nexmark.other' --upsert --dlq-topic events-dead",
      "",
      "Ctrl-C, SIGTERM or SIGHUP stops the sink, committing what its writers took (a restart reads the rest"
          + " again); the exit status is then 130, 143 or 129, as for any command a signal stops. A second Ctrl-C"
          + " or SIGTERM exits at once.",
      "Exit codes: 0 --stop-at-end reached the end, committed; 1 failed"
          + " (a bad record under --on-error fail, a broker that does not answer, a missing topic with --stop-at-end,"
          + " catalog or commit errors; nothing uncommitted is kept, a restart resumes from the tables); 2 bad usage."
    })
final class SinkCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--bootstrap", required = true, paramLabel = "HOST:PORT", description = "Kafka bootstrap servers.")
  String bootstrap;

  @Option(names = "--group", defaultValue = "floe-sink", description = "Consumer group; also names the offsets kept in the tables (default: ${DEFAULT-VALUE}).")
  String group;

  @Mixin CatalogOptions catalog;

  @Option(names = "--consumer-property", paramLabel = "KEY=VALUE", description = "A Kafka client setting (repeatable): the consumer's; prefixed producer., the dead-letter producer's.")
  Map<String, String> consumerProperties = new LinkedHashMap<>();

  @Override
  public Integer call() throws Exception {
    validate();
    PrintWriter out = spec.commandLine().getOut();
    Catalog opened = catalog.open();
    try (KafkaIcebergSink sink = startSink(config(opened))) {
      // Ctrl-C, SIGTERM and SIGHUP stop the sink here, before the JVM's shutdown; the hook is for
      // the other ways a JVM is told to end (System.exit elsewhere)
      CountDownLatch finished = new CountDownLatch(1);
      Thread onShutdown = new Thread(() -> {
        sink.stop();
        awaitQuietly(finished);
      }, "floe-sink-shutdown");
      Runtime.getRuntime().addShutdownHook(onShutdown);
      SinkProgress progress = SinkProgress.start(sink.metrics(), out);
      long started = System.nanoTime();
      try (StopSignals signals = StopSignals.install(sink::stop)) {
        try {
          sink.run();
        } finally {
          progress.stop();
          finished.countDown();
          removeHook(onShutdown);
        }
        SinkProgress.summary(sink.metrics(), (System.nanoTime() - started) / 1e9, out);
        if (signals.received()) {
          return signals.exitCode();
        }
      }
    } finally {
      if (opened instanceof AutoCloseable c) {
        c.close();
      }
    }
    return FloeCli.EXIT_OK;
  }

  /** The sink, or its failure to start with the settings it names said as this command's flags. */
  private static KafkaIcebergSink startSink(SinkConfig config) {
    try {
      return new KafkaIcebergSink(config);
    } catch (SinkException e) {
      throw new SinkException(asFlags(e.getMessage()), e.getCause());
    }
  }

  /**
   * {@code message} with each sink setting it names ({@code kafka.timeout}) as its flag ({@code
   * --kafka-timeout}). Only dotted names: the one-word ones ({@code topic}, {@code route}) are also
   * plain words in the sink's messages (helper-79: "bad records to a dead-letter --topic").
   */
  static String asFlags(String message) {
    String out = message;
    for (String setting : SinkSettings.definition().names()) {
      if (!setting.contains(".")) {
        continue;
      }
      out = out.replaceAll("(?<![\\w.-])" + Pattern.quote(setting) + "(?![\\w.-])", Matcher.quoteReplacement(flag(setting)));
    }
    return out;
  }

  private void validate() {
    catalog.validate(spec, "sink");
    // the sink names its offsets in the tables after --group and reaches the cluster through
    // --bootstrap with its other clients too: the consumer alone must not be told otherwise
    for (String key : List.of("group.id", "bootstrap.servers")) {
      if (consumerProperties.containsKey(key)) {
        throw usage("--consumer-property " + key + ": give it with --" + (key.equals("group.id") ? "group" : "bootstrap"));
      }
    }
  }

  /**
   * One flag per {@link SinkSettings} setting, named after it ({@code commit.interval} is {@code
   * --commit-interval}), with its documentation and default: the flags and the settings cannot
   * drift apart. Lists are repeatable flags; booleans take no value ({@code --no-X} when they
   * default to true).
   */
  static void addSettingOptions(CommandSpec command) {
    for (ConfigDef.ConfigKey key : SinkSettings.definition().configKeys().values()) {
      String description = asFlags(key.documentation)
          + (key.defaultValue == null || "".equals(key.defaultValue) || key.type == ConfigDef.Type.BOOLEAN
              ? "" : " (default: " + key.defaultValue + ")");
      OptionSpec.Builder option = OptionSpec.builder(flag(key.name)).description(description);
      switch (key.type) {
        case BOOLEAN -> option.type(boolean.class).arity("0").negatable(Boolean.TRUE.equals(key.defaultValue));
        case LIST -> option.type(List.class).auxiliaryTypes(String.class).paramLabel(label(key.name));
        default -> option.type(String.class).paramLabel(label(key.name));
      }
      command.addOption(option.build());
    }
  }

  private static String flag(String setting) {
    return "--" + setting.replace('.', '-');
  }

  private static String label(String setting) {
    return switch (setting) {
      case SinkSettings.ROUTE -> "TOPIC=NS.TABLE";
      case SinkSettings.ROUTE_VALUE -> "REGEX=NS.TABLE";
      case SinkSettings.TOPIC, SinkSettings.DLQ_TOPIC -> "TOPIC";
      case SinkSettings.SCHEMA -> "FILE|JSON";
      default -> setting.endsWith("bytes") ? "SIZE"
          : setting.endsWith("interval") || setting.endsWith("every") ? "DURATION" : "VALUE";
    };
  }

  /** The settings given on the command line, by name. */
  private Map<String, Object> givenSettings() {
    Map<String, Object> given = new LinkedHashMap<>();
    for (String name : SinkSettings.definition().names()) {
      OptionSpec option = spec.findOption(flag(name));
      if (option == null || !spec.commandLine().getParseResult().hasMatchedOption(option)) {
        continue;
      }
      Object value = option.getValue();
      given.put(name, value instanceof List<?> list ? String.join(",", list.stream().map(String::valueOf).toList())
          : String.valueOf(value));
    }
    return given;
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  private SinkConfig config(Catalog opened) {
    SinkConfig.Builder config = SinkConfig.builder(opened, bootstrap, group);
    try {
      config.settings(givenSettings());
      consumerProperties.forEach(config::consumerProperty);
      return config.build();
    } catch (ConfigException | IllegalArgumentException e) {
      if (e.getMessage().startsWith("schema not found") || e.getMessage().startsWith("cannot read schema")) {
        throw e; // a missing or unreadable file, as with floe write: the run failed (exit 1), not its usage
      }
      // the settings' names as this command's flags: commit.interval is --commit-interval
      String message = Pattern.compile("Invalid value (.*) for configuration ([a-z.]+)")
          .matcher(e.getMessage())
          .replaceAll(m -> Matcher.quoteReplacement(
              "invalid value " + m.group(1) + " for " + flag(m.group(2))));
      throw usage(asFlags(message
          .replace("give at least one route (topic -> table)",
              "give --route TOPIC=NS.TABLE, or --topic with --route-field and --route-value")
          .replace("give each topic read a route (route)", "give each --topic a --route TOPIC=NS.TABLE")
          .replace("set schema too", "set --schema too")));
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running: it waits for us.
    }
  }
}
