package dev.floe.arrow;

/**
 * What happens to messages that cannot be decoded: the one policy type of floe's decoder, the
 * Kafka sink ({@code on.error}) and the CLI ({@code --on-error}). Good messages are decoded
 * either way.
 */
public enum BadRecordPolicy {
  /**
   * Stop at the first bad message, naming it (a decode throws {@link BadRecordException}; nothing
   * of the batch is kept; the sink stops with nothing of that record's cycle committed).
   */
  FAIL,
  /** Drop bad messages and count them (a decode reports only their number). */
  SKIP,
  /**
   * Drop bad messages and hand each over with its reason and original bytes: a decode returns
   * them ({@link DecodeStats#rejected()}), the sink sends them to its dead-letter topic, the CLI
   * to its dead-letter file.
   */
  DEAD_LETTER;

  /**
   * The policy a setting or flag names: {@code fail}, {@code skip} or {@code dlq}.
   *
   * @throws IllegalArgumentException for any other name
   */
  public static BadRecordPolicy of(String name) {
    return switch (name) {
      case "fail" -> FAIL;
      case "skip" -> SKIP;
      case "dlq" -> DEAD_LETTER;
      default -> throw new IllegalArgumentException("a bad-record policy is fail, skip or dlq, not '" + name + "'");
    };
  }
}
