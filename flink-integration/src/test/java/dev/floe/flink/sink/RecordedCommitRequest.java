package dev.floe.flink.sink;

import org.apache.flink.api.connector.sink2.Committer;

/** Flink's request to commit one committable, as the committer answers it: failures and retries are test failures. */
final class RecordedCommitRequest implements Committer.CommitRequest<FloeCommittable> {
  private final FloeCommittable committable;
  private boolean alreadyCommitted;

  RecordedCommitRequest(FloeCommittable committable) {
    this.committable = committable;
  }

  /** Whether the committer found the committable in the table and did not commit it again. */
  boolean alreadyCommitted() {
    return alreadyCommitted;
  }

  @Override
  public FloeCommittable getCommittable() {
    return committable;
  }

  @Override
  public int getNumberOfRetries() {
    return 0;
  }

  @Override
  public void signalFailedWithKnownReason(Throwable t) {
    throw new AssertionError(t);
  }

  @Override
  public void signalFailedWithUnknownReason(Throwable t) {
    throw new AssertionError(t);
  }

  @Override
  public void retryLater() {
    throw new AssertionError("retry of checkpoint " + committable.checkpointId());
  }

  @Override
  public void updateAndRetryLater(FloeCommittable updated) {
    throw new AssertionError("retry of checkpoint " + committable.checkpointId());
  }

  @Override
  public void signalAlreadyCommitted() {
    alreadyCommitted = true;
  }
}
