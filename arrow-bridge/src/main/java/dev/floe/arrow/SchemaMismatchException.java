package dev.floe.arrow;

/** A batch's schema differs from the writer's; the message names the first differing field. */
public final class SchemaMismatchException extends InvalidArgumentException {
  private static final long serialVersionUID = 1L;

  public SchemaMismatchException(String message) {
    super(SCHEMA_MISMATCH, message);
  }
}
