package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.postgres.internal.worker.connection.NamedStatement;
import dev.pginbox.inbox.postgres.internal.worker.connection.SqlStates;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerSql;
import dev.pginbox.inbox.postgres.internal.worker.membership.Announcement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Periodic work off the hot path, on one thread and connection: the pending gauges, and the
 * retention sweep ({@code inbox.purge_inbox} in small batches, one elected worker at a time through
 * a row lock on the inbox's catalog row taken in the purge transaction itself).
 */
final class Maintenance {

  private static final Logger LOG = LoggerFactory.getLogger(Maintenance.class);

  /**
   * A sweep stops after this many batches and goes on at the next interval, so it never runs long.
   */
  private static final int MAX_BATCHES_PER_SWEEP = 100;

  /**
   * How long a statement of this thread waits for its answer: a gauge query or a retention batch
   * takes milliseconds to seconds on a large inbox, and a half-open connection would otherwise hold
   * this thread (and the worker's stop, which announces on this connection) for the kernel's
   * retransmission time, a quarter of an hour.
   */
  private static final Duration ANSWER = Duration.ofMinutes(1);

  private final WorkerContext ctx;
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  private volatile WorkerConnection wc;
  private volatile boolean purgeMissingLogged;
  private final String announcement;
  private volatile boolean announceMissing;
  private volatile boolean peersMissing;

  Maintenance(WorkerContext ctx) {
    this.ctx = ctx;
    this.announcement = Announcement.details(ctx.options(), ctx.config().gaugeInterval());
  }

  void refreshGauges() {
    try {
      NamedStatement ps =
          connection().statement(WorkerSql.PENDING_GAUGES).setString("inbox", ctx.inbox());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        ctx.events().pending(rs.getLong(1), rs.getDouble(2));
      }
      wc.connection().commit();
    } catch (SQLException | RuntimeException e) {
      failed("refreshing the pending gauges", e);
    }
    announce(WorkerSql.ANNOUNCE, announcement);
  }

  /** Tells the worker registry (inbox.inbox_workers) that this worker stops. */
  void announceStopped() {
    announce(WorkerSql.STOPPED, null);
  }

  private void announce(WorkerSql statement, String details) {
    if (announceMissing) {
      return;
    }
    try {
      NamedStatement ps =
          connection()
              .statement(statement)
              .setString("inbox", ctx.inbox())
              .setString("workerId", ctx.config().workerId());
      if (details != null) {
        ps.setString("details", details);
      }
      ps.execute();
      wc.connection().commit();
    } catch (SQLException e) {
      if ("42883".equals(e.getSQLState())) {
        // An older SQL API without the worker registry: the worker runs unlisted, said once.
        announceMissing = true;
        LOG.warn("inbox {}: inbox.worker_announce is missing; upgrade the SQL API", ctx.inbox());
        wc.rollbackQuietly();
        return;
      }
      failed("announcing the worker", e);
    } catch (RuntimeException e) {
      failed("announcing the worker", e);
    }
  }

  /**
   * Where this worker stands among the live workers sharing every head ({@code
   * inbox.worker_peers}), for the buckets it prefers on an ordered inbox. An older SQL API without
   * the function: no preference (the worker claims as before).
   */
  void refreshPeers() {
    if (announceMissing || peersMissing) {
      return;
    }
    try {
      NamedStatement ps =
          connection()
              .statement(WorkerSql.PEERS)
              .setString("inbox", ctx.inbox())
              .setString("workerId", ctx.config().workerId());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        int rank = rs.getInt(1);
        Integer listed = rs.wasNull() ? null : rank;
        int peers = rs.getInt(2);
        if (ctx.scope().peers(listed, peers)) {
          ctx.events().peersChanged(listed == null ? -1 : listed, peers);
        }
      }
      wc.connection().commit();
    } catch (SQLException e) {
      if ("42883".equals(e.getSQLState())) {
        peersMissing = true;
        wc.rollbackQuietly();
        return;
      }
      peersFailed(e);
    } catch (RuntimeException e) {
      peersFailed(e);
    }
  }

  /**
   * Every second while the database is away: said at debug level (the gauge refresh says it at
   * warning level every gauge interval); the worker keeps the preference it had.
   */
  private void peersFailed(Exception e) {
    LOG.debug(
        "inbox {}: reading the worker's peers failed: {}", ctx.inbox(), SqlStates.describe(e));
    close();
  }

  /** One sweep; returns the rows deleted, or -1 when another worker is purging the inbox. */
  long sweep() {
    long total = 0;
    try {
      for (int i = 0; i < MAX_BATCHES_PER_SWEEP; i++) {
        NamedStatement ps =
            connection()
                .statement(WorkerSql.PURGE)
                .setString("inbox", ctx.inbox())
                .setInt("batchSize", ctx.config().retentionBatchSize());
        String json;
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          json = rs.getString(1);
        }
        wc.connection().commit();
        if (json == null) {
          return i == 0 ? -1 : total;
        }
        total += changedRows(json);
        if (!JSON.readTree(json).path("more").asBoolean(false)) {
          break;
        }
      }
      if (total > 0) {
        LOG.info("inbox {}: retention deleted or stripped {} rows", ctx.inbox(), total);
      }
      return total;
    } catch (SQLException e) {
      if ("42883".equals(e.getSQLState())) {
        // inbox.try_purge_inbox is not installed (an older SQL API): retention is skipped, said
        // once.
        if (!purgeMissingLogged) {
          purgeMissingLogged = true;
          LOG.warn(
              "inbox {}: inbox.try_purge_inbox is missing; retention skipped until the SQL API is upgraded",
              ctx.inbox());
        }
        if (wc != null) {
          wc.rollbackQuietly();
        }
        return 0;
      }
      failed("the retention sweep", e);
      return 0;
    } catch (RuntimeException | com.fasterxml.jackson.core.JsonProcessingException e) {
      failed("the retention sweep", e);
      return 0;
    }
  }

  /** The rows a purge_inbox step changed: the sum of its "deleted_*" and "stripped_*" counts. */
  static long changedRows(String json) throws com.fasterxml.jackson.core.JsonProcessingException {
    long sum = 0;
    for (var field : JSON.readTree(json).properties()) {
      if ((field.getKey().startsWith("deleted") || field.getKey().startsWith("stripped"))
          && field.getValue().canConvertToLong()) {
        sum += field.getValue().asLong();
      }
    }
    return sum;
  }

  private WorkerConnection connection() throws SQLException {
    if (wc == null) {
      wc =
          WorkerConnection.open(ctx.jdbi(), ctx.inbox(), true, "maintenance").answersWithin(ANSWER);
    }
    return wc;
  }

  private void failed(String what, Exception e) {
    LOG.warn("inbox {}: {} failed: {}", ctx.inbox(), what, SqlStates.describe(e));
    close();
  }

  void close() {
    if (wc != null) {
      wc.close();
      wc = null;
    }
  }

  /**
   * From another thread, while a task may still wait on the connection: closes its socket (the
   * waiting statement fails at once, the server rolls back).
   */
  void abort() {
    WorkerConnection c = wc;
    if (c != null) {
      c.abort();
    }
  }
}
