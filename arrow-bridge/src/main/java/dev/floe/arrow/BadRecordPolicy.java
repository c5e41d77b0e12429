package dev.floe.arrow;

/** What a decode does with messages it cannot decode. Good messages are decoded either way. */
public enum BadRecordPolicy {
  /** Throw {@link BadRecordException} naming the first bad message; nothing of the batch is kept. */
  FAIL,
  /** Drop bad messages; only their number is reported. */
  SKIP,
  /** Drop bad messages and return each with its reason and payload (for a dead-letter destination). */
  COLLECT
}
