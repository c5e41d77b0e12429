package dev.floe.arrow;

import java.util.List;

/**
 * The inferred type of an unknown field's values, merged over every value the decoder met (see
 * {@link JsonDecoderConfig#describeUnknownFields()}): {@code null} alone, or an empty array's
 * element, says nothing yet; an integer met with a float is a float; objects merge their fields;
 * otherwise the first kind met stays.
 */
public sealed interface ValueShape {
  /** A JSON scalar: {@code integer}, {@code float}, {@code string}, {@code boolean} or {@code null}. */
  record Scalar(String kind) implements ValueShape {}

  /** An object: its fields in the order first met. */
  record ObjectShape(List<Field> fields) implements ValueShape {
    public ObjectShape {
      fields = List.copyOf(fields);
    }
  }

  /** One field of an {@link ObjectShape}. */
  record Field(String name, ValueShape shape) {}

  /** An array: the merged shape of its elements. */
  record ArrayShape(ValueShape element) implements ValueShape {}
}
