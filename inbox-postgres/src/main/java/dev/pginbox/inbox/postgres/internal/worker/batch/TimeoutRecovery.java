package dev.pginbox.inbox.postgres.internal.worker.batch;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a batch that passed its processing timeout, on the batch's own connection and in its own
 * transaction, so that its rows stay locked until the outcome is written: nobody can claim them in
 * between, and the failed attempt and its backoff are in place before they are free again. One
 * round trip ({@link BatchStore#endTimedOut}): back to the savepoint of the part that hung (undoing
 * the handler's writes of that part), record the failures, give the untouched messages back
 * uncharged, commit. Then the connection is closed, so the stuck handler cannot write anything
 * more.
 *
 * <p>Charged: the message that was running (a message handler), or the single message of a batch
 * handler's part. A batch handler's larger part is not charged: {@link Suspects} hands it over in
 * halves next time. Messages finished before the timeout keep their outcome.
 */
public final class TimeoutRecovery {

  private static final Logger LOG = LoggerFactory.getLogger(TimeoutRecovery.class);

  private final String inbox;
  private final Duration processingTimeout;
  private final Suspects suspects;
  private final OutcomeRecorder recorder;

  public TimeoutRecovery(
      String inbox, Duration processingTimeout, Suspects suspects, OutcomeRecorder recorder) {
    this.inbox = inbox;
    this.processingTimeout = processingTimeout;
    this.suspects = suspects;
    this.recorder = recorder;
  }

  /** Ends {@code batch}, taken away by the watchdog; runs on the replacement processor's thread. */
  public void end(InFlightBatch batch) {
    InFlightBatch.Progress progress = batch.progress();
    List<Failure> failures = new ArrayList<>(progress.failures());
    List<String> giveBack = new ArrayList<>(progress.untouched());
    List<String> part = progress.part();
    if (part.size() == 1) {
      failures.add(
          Failure.of(
              part.get(0), "processing timeout: the handler ran longer than " + processingTimeout));
    } else if (!part.isEmpty()) {
      suspects.halve(part);
      giveBack.addAll(part);
    }
    try {
      recorder.recorded(
          batch.store().endTimedOut(progress.partSavepoint(), failures, giveBack), failures);
      LOG.warn(
          "inbox {}: a batch of {} passed the processing timeout of {}; {} charged, {} given back",
          inbox,
          batch.eventIds().size(),
          processingTimeout,
          part.size() == 1 ? part.get(0) : "nobody",
          giveBack.size());
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "inbox {}: a batch of {} passed the processing timeout of {} and could not be ended on its"
              + " connection ({}); it goes back uncharged",
          inbox,
          batch.eventIds().size(),
          processingTimeout,
          e.getMessage());
    } finally {
      batch.abort();
      batch.released();
    }
  }
}
