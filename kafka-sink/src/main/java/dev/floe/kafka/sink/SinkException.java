package dev.floe.kafka.sink;

/** The sink stopped: a bad record under the fail policy, a write or commit failure, or fencing. */
public class SinkException extends RuntimeException {
  public SinkException(String message, Throwable cause) {
    super(message, cause);
  }

  static RuntimeException wrap(Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new SinkException(t.getMessage(), t);
  }
}
