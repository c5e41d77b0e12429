package dev.floe.arrow;

import java.util.List;

/**
 * A field that messages had and the decoder's schema lacks, as {@link
 * NativeJsonDecoder#takeUnknownFields()} reports it.
 *
 * @param path where it was: {@code name} at the top level, {@code parent.name} in a struct,
 *     {@code list[].name} in a list's elements, {@code map{}.name} in a map's values
 * @param kinds the JSON kinds its values had: object, array, string, integer, float, boolean,
 *     null (a number is an integer unless it has a fraction or an exponent)
 * @param count how many values came since the last report
 */
public record UnknownField(String path, List<String> kinds, long count) {
  public UnknownField {
    kinds = List.copyOf(kinds);
  }
}
