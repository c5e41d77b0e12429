package dev.floe.arrow;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What messages had and the decoder's schema lacks, as {@link NativeJsonDecoder#takeUnknownFields()}
 * reports it: a field with no column, or (when described) values too wide for their column.
 *
 * @param path where it was: {@code name} at the top level, {@code parent.name} in a struct,
 *     {@code list[].name} in a list's elements, {@code map{}.name} in a map's values
 * @param kinds the JSON kinds its values had: object, array, string, integer, float, boolean,
 *     null (a number is an integer unless it has a fraction or an exponent); for a too-narrow
 *     column, its kind (integer, float or decimal)
 * @param count how many values came since the last report
 * @param parentId the field id of the struct that lacks the field (empty at the top level, and
 *     unless described)
 * @param shape the inferred type of its values (when described)
 * @param fieldId a too-narrow column's field id
 * @param widenTo the type a too-narrow column needs ({@code long}, {@code double} or {@code
 *     decimal(P,S)}); empty for an unknown field
 * @param key an unknown field's own key as the messages had it (the path joins keys with ".",
 *     and a key may hold a "." itself); empty for a too-narrow column
 */
public record UnknownField(
    String path,
    List<String> kinds,
    long count,
    OptionalInt parentId,
    Optional<ValueShape> shape,
    OptionalInt fieldId,
    Optional<String> widenTo,
    Optional<String> key) {
  public UnknownField {
    kinds = List.copyOf(kinds);
  }

  /** An unknown field as reported without description. */
  public UnknownField(String path, List<String> kinds, long count) {
    this(path, kinds, count, OptionalInt.empty(), Optional.empty(), OptionalInt.empty(), Optional.empty(),
        Optional.empty());
  }

  /**
   * The field's own name: its key, or (from a report without keys) what follows the last "." of
   * its path.
   */
  public String name() {
    return key.orElseGet(() -> parentId.isEmpty() ? path : path.substring(path.lastIndexOf('.') + 1));
  }

  /** The path as a message shows it ({@link ShownText#escaped}), cut after 200 characters. */
  public String shownPath() {
    return ShownText.escaped(path, ShownText.LONGEST) + (path.length() > ShownText.LONGEST ? "..." : "");
  }

  /** True for a column whose values need a wider type, false for a field with no column. */
  public boolean needsWidening() {
    return widenTo.isPresent();
  }
}
