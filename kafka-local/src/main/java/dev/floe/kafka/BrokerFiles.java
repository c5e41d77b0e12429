package dev.floe.kafka;

import java.nio.file.Path;

/** Where one broker keeps its files: everything lives under one data directory. */
record BrokerFiles(Path dir) {
  BrokerFiles {
    dir = dir.toAbsolutePath().normalize();
  }

  /** Kafka's {@code log.dirs}: the topic partitions and the KRaft metadata log. */
  Path logDirs() {
    return dir.resolve("kafka-logs");
  }

  /** Written by {@code StorageTool format}; its presence means the storage is formatted. */
  Path metaProperties() {
    return logDirs().resolve("meta.properties");
  }

  Path serverProperties() {
    return dir.resolve("server.properties");
  }

  Path log4jConfig() {
    return dir.resolve("log4j2.properties");
  }

  /** The broker's stdout and stderr (its log4j output), appended across restarts. */
  Path brokerLog() {
    return dir.resolve("broker.log");
  }

  Path pidFile() {
    return dir.resolve("broker.pid");
  }

  Path bootstrapFile() {
    return dir.resolve("bootstrap.servers");
  }
}
