package dev.floe.iceberg;

import dev.floe.arrow.NativeJsonDecoder;
import dev.floe.arrow.UnknownField;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a table's writer does with the fields records carry and the table lacks: counts their
 * values and names each field once in the log, so that nothing is dropped unseen. One per table,
 * used by the thread that decodes its batches (decoders built with {@code reportUnknownFields}).
 */
public final class UnknownFieldNotes {
  private static final Logger LOG = LoggerFactory.getLogger(UnknownFieldNotes.class);

  private final Object table;
  private final LongConsumer values;
  private final Set<String> named = new HashSet<>();

  /**
   * @param table what the log names (the table's identifier)
   * @param values told how many values of unknown fields each batch had (a metric)
   */
  public UnknownFieldNotes(Object table, LongConsumer values) {
    this.table = table;
    this.values = values;
  }

  /** After a batch: takes what {@code decoder} counted. */
  public void take(NativeJsonDecoder decoder) {
    note(decoder.takeUnknownFields());
  }

  /**
   * After a batch: notes a report already taken from its decoder. Entries for values too wide for
   * their column are not unknown fields (their records were rejected, and reported as such).
   */
  public void note(List<UnknownField> report) {
    for (UnknownField field : report) {
      if (field.needsWidening()) {
        continue;
      }
      values.accept(field.count());
      if (named.add(field.path())) {
        LOG.warn("table {} has no column for field '{}' ({} values) that records carry: it is not written; "
            + "add the column to the table to keep it", table, field.shownPath(), String.join("/", field.kinds()));
      }
    }
  }
}
