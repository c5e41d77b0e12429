package dev.floe.arrow.internal;

import dev.floe.arrow.ShownText;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.validate.ValidateVectorBufferVisitor;

/**
 * What a root must be before the Arrow C Data Interface exports it to libfloe: buffers as large as
 * its value counts and offsets say. The interface carries no buffer sizes; arrow-rs sizes a
 * string column's data from its last offset and a fixed-width column's from its length, so a
 * vector whose last offset points past its data buffer (set by hand, or read from a corrupt IPC
 * stream) had libfloe read past it: a crash, or a neighbouring buffer's bytes written into the
 * file (helper-85). Arrow Java's buffer check ({@code ValidateVectorBufferVisitor}) is per vector, not per value.
 */
public final class ExportedRoots {
  private ExportedRoots() {}

  /**
   * @throws IllegalArgumentException naming the first column whose buffers are too small, or that
   *     is dictionary-encoded
   */
  public static void requireWithinBuffers(VectorSchemaRoot root) {
    for (FieldVector vector : root.getFieldVectors()) {
      requirePlain(vector.getField(), "");
      try {
        // the buffer check alone: Arrow Java's type check refuses every MapVector (it visits
        // it as a list and expects a list type)
        vector.accept(new ValidateVectorBufferVisitor(), null);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("column " + ShownText.quoted(vector.getName()) + " is not valid Arrow: "
            + e.getMessage(), e);
      }
    }
  }

  /** Refuses a dictionary-encoded field at any depth: Arrow's export wants a provider floe has none of. */
  private static void requirePlain(Field field, String parent) {
    String path = parent + field.getName();
    if (field.getDictionary() != null) {
      throw new IllegalArgumentException("column " + ShownText.quoted(path)
          + " is dictionary-encoded: floe writes plain values, decode it first");
    }
    for (Field child : field.getChildren()) {
      requirePlain(child, path + ".");
    }
  }
}
