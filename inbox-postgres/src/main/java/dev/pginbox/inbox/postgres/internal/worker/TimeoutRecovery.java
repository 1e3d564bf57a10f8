package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.postgres.internal.SqlResources;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a batch that passed its processing timeout, on the batch's own connection and in its own
 * transaction, so that its rows stay locked until the outcome is written: nobody can claim them in
 * between, and the failed attempt and its backoff are in place before they are free again. One
 * round trip, one statement list that the driver runs as a unit: back to the savepoint of the part
 * that hung (undoing the handler's writes of that part), record the failures, give the untouched
 * messages back uncharged, commit. Then the connection is closed, so the stuck handler cannot write
 * anything more.
 *
 * <p>Charged: the message that was running (a message handler), or the single message of a batch
 * handler's part. A batch handler's larger part is not charged: {@link Suspects} hands it over in
 * halves next time. Messages finished before the timeout keep their outcome.
 */
final class TimeoutRecovery {

  private static final Logger LOG = LoggerFactory.getLogger(TimeoutRecovery.class);

  private final WorkerContext ctx;
  private final Suspects suspects;
  private final OutcomeRecorder recorder;
  private final String statement;
  private final String statementAfterSavepoint;

  TimeoutRecovery(WorkerContext ctx, Suspects suspects, OutcomeRecorder recorder) {
    this.ctx = ctx;
    this.suspects = suspects;
    this.recorder = recorder;
    this.statement = SqlResources.get(TimeoutRecovery.class, "end_timed_out_batch", Map.of());
    this.statementAfterSavepoint =
        "ROLLBACK TO SAVEPOINT " + InFlightBatch.SAVEPOINT + ";\n" + statement;
  }

  void end(InFlightBatch batch) {
    InFlightBatch.Progress progress = batch.progress();
    List<Failure> failures = new ArrayList<>(progress.failures());
    List<String> giveBack = new ArrayList<>(progress.untouched());
    List<String> part = progress.part();
    if (part.size() == 1) {
      failures.add(
          Failure.of(
              part.get(0),
              "processing timeout: the handler ran longer than "
                  + ctx.options().processingTimeout()));
    } else if (!part.isEmpty()) {
      suspects.halve(part);
      giveBack.addAll(part);
    }
    Connection c = batch.connection.connection();
    try (PreparedStatement ps =
        c.prepareStatement(progress.partSavepoint() ? statementAfterSavepoint : statement)) {
      recorder.bind(ps, 1, c, failures);
      ps.setString(6, ctx.inbox());
      ps.setArray(7, c.createArrayOf("text", giveBack.toArray(new String[0])));
      boolean resultSet = ps.execute();
      boolean read = false;
      while (resultSet || ps.getUpdateCount() != -1) {
        if (resultSet && !read) {
          try (ResultSet rs = ps.getResultSet()) {
            recorder.read(rs, failures);
          }
          read = true;
        }
        resultSet = ps.getMoreResults();
      }
      LOG.warn(
          "inbox {}: a batch of {} passed the processing timeout of {}; {} charged, {} given back",
          ctx.inbox(),
          batch.eventIds.size(),
          ctx.options().processingTimeout(),
          part.size() == 1 ? part.get(0) : "nobody",
          giveBack.size());
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "inbox {}: a batch of {} passed the processing timeout of {} and could not be ended on its"
              + " connection ({}); it goes back uncharged",
          ctx.inbox(),
          batch.eventIds.size(),
          ctx.options().processingTimeout(),
          e.getMessage());
    } finally {
      batch.connection.abort();
      batch.released();
    }
  }
}
