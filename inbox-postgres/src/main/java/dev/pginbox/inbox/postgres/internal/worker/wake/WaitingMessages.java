package dev.pginbox.inbox.postgres.internal.worker.wake;

import dev.pginbox.inbox.postgres.internal.worker.connection.NamedStatement;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerSql;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What the coordinator asks the database on its own connection: how many messages wait in the
 * buckets the worker may claim from (capped: a count decides nothing beyond a batch), and whether
 * the inbox is ordered.
 */
public final class WaitingMessages {

  private final String inbox;
  private final ClaimScope scope;
  private final WorkerEvents events;

  public WaitingMessages(String inbox, ClaimScope scope, WorkerEvents events) {
    this.inbox = inbox;
    this.scope = scope;
    this.events = events;
  }

  /** Whether the inbox is ordered, learned at every connection and told to the claim scope. */
  boolean ordered(WorkerConnection wc) throws SQLException {
    NamedStatement ps = wc.statement(WorkerSql.INBOX_ORDERED).setString("inbox", inbox);
    boolean ordered;
    try (ResultSet rs = ps.executeQuery()) {
      ordered = rs.next() && rs.getBoolean(1);
    }
    scope.ordered(ordered);
    return ordered;
  }

  /** The messages waiting, at most {@code cap}; a count that answers ends a refusal episode. */
  int count(WorkerConnection wc, int cap) throws SQLException {
    NamedStatement ps =
        wc.statement(WorkerSql.COUNT_WAITING).setString("inbox", inbox).setInt("cap", cap);
    ClaimScope.Claimable claimable = scope.claimable();
    if (claimable.nothing()) {
      return 0;
    }
    ps.setIntArray("buckets", claimable.buckets());
    int waiting;
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      waiting = rs.getInt(1);
    }
    events.recovered("coordinator");
    return waiting;
  }
}
