package dev.floe.kafka;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The broker's {@code server.properties} and log4j2 configuration: one KRaft node that is both
 * broker and controller, loopback only, plaintext, replication factor 1 everywhere, and few
 * threads and small internal topics so that it stays light on a 2-core machine.
 *
 * <p>Automatic topic creation is off: tests create their topics with a known partition count
 * ({@link LocalKafkaBroker#createTopic}), and a misspelled topic fails instead of silently
 * becoming a new one-partition topic. Turn it on with {@code auto.create.topics.enable=true} as
 * an override if needed.
 */
final class BrokerConfig {
  private static final int NODE_ID = 1;

  private BrokerConfig() {}

  /** The properties for {@code ports} and {@code files}, then {@code overrides} on top. */
  static Map<String, String> serverProperties(
      BrokerPorts ports, BrokerFiles files, Map<String, String> overrides) {
    String host = BrokerPorts.HOST;
    Map<String, String> p = new LinkedHashMap<>();
    p.put("process.roles", "broker,controller");
    p.put("node.id", String.valueOf(NODE_ID));
    p.put("controller.quorum.voters", NODE_ID + "@" + host + ":" + ports.controller());
    String plaintext = "PLAINTEXT://" + host + ":" + ports.broker();
    p.put("listeners", plaintext + ",CONTROLLER://" + host + ":" + ports.controller());
    p.put("advertised.listeners", plaintext);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("log.dirs", files.logDirs().toString());

    // One node: every replication factor and min ISR is 1.
    p.put("default.replication.factor", "1");
    p.put("min.insync.replicas", "1");
    p.put("offsets.topic.replication.factor", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");

    // Small internal topics (default 50 partitions each): the first consumer group or
    // transaction on a fresh broker waits for all of them to load.
    p.put("offsets.topic.num.partitions", "4");
    p.put("transaction.state.log.num.partitions", "4");
    p.put("share.coordinator.state.topic.num.partitions", "4");

    // A broker started again after a kill waits until the controller fences its previous
    // registration, i.e. one session timeout (default 9 s).
    p.put("broker.session.timeout.ms", "3000");
    p.put("broker.heartbeat.interval.ms", "500");

    p.put("auto.create.topics.enable", "false");
    p.put("num.partitions", "1");
    // Consumers join at once instead of waiting 3 s for more members.
    p.put("group.initial.rebalance.delay.ms", "0");

    // Few threads and a small cleaner buffer (defaults: 3 network, 8 io, 10 background,
    // 4 group coordinator threads, 128 MiB dedupe buffer).
    p.put("num.network.threads", "2");
    p.put("num.io.threads", "2");
    p.put("background.threads", "2");
    p.put("group.coordinator.threads", "1");
    p.put("num.recovery.threads.per.data.dir", "1");
    p.put("log.cleaner.dedupe.buffer.size", String.valueOf(8 << 20));

    p.putAll(overrides);
    return p;
  }

  /** Plain {@code key=value} lines (values here need no escaping) so that people can read it. */
  static void writeServerProperties(Path file, Map<String, String> properties) {
    StringBuilder text = new StringBuilder("# written by floe-kafka-local on each start\n");
    properties.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** The ports a previous start wrote into {@code file}, if it exists. */
  static Optional<BrokerPorts> readPorts(Path file) {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    Properties in = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      in.load(reader);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    String advertised = in.getProperty("advertised.listeners", "");
    String voters = in.getProperty("controller.quorum.voters", "");
    try {
      int broker = Integer.parseInt(advertised.substring(advertised.lastIndexOf(':') + 1));
      int controller = Integer.parseInt(voters.substring(voters.lastIndexOf(':') + 1));
      return Optional.of(new BrokerPorts(broker, controller));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * log4j2 to stdout (which the launcher sends to {@code broker.log}), INFO but without the
   * hundreds of lines of config dumps every client and server prints.
   */
  static void writeLog4jConfig(Path file) {
    String config =
        """
        rootLogger.level = INFO
        rootLogger.appenderRef.stdout.ref = stdout
        appender.stdout.type = Console
        appender.stdout.name = stdout
        appender.stdout.layout.type = PatternLayout
        appender.stdout.layout.pattern = [%d] %p %m (%c)%n
        logger.config.name = org.apache.kafka.common.config.AbstractConfig
        logger.config.level = WARN
        logger.appinfo.name = org.apache.kafka.common.utils.AppInfoParser
        logger.appinfo.level = WARN
        """;
    try {
      Files.writeString(file, config, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
