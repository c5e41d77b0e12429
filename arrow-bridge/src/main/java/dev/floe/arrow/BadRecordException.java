package dev.floe.arrow;

/** A message could not be decoded under {@link BadRecordPolicy#FAIL}. */
public final class BadRecordException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient RejectedMessage rejected;

  public BadRecordException(RejectedMessage rejected) {
    super(rejected.describe() + ": " + rejected.reason());
    this.rejected = rejected;
  }

  /** The first bad message of the batch. */
  public RejectedMessage rejected() {
    return rejected;
  }
}
