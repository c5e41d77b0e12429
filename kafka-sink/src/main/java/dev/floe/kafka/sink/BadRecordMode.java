package dev.floe.kafka.sink;

/** What the sink does with a record that does not decode into its table's schema. */
public enum BadRecordMode {
  /** Stop the sink, naming the record's topic, partition, offset and the reason. */
  FAIL,
  /** Count and log it, then move on. */
  SKIP,
  /** Send its original bytes to the dead-letter topic, with headers saying where it came from and why. */
  DEAD_LETTER;

  /** The mode a setting names: {@code fail}, {@code skip} or {@code dlq}. */
  static BadRecordMode of(String name) {
    return switch (name) {
      case "fail" -> FAIL;
      case "skip" -> SKIP;
      case "dlq" -> DEAD_LETTER;
      default -> throw new IllegalArgumentException("bad-record policy must be fail, skip or dlq, not '" + name + "'");
    };
  }
}
