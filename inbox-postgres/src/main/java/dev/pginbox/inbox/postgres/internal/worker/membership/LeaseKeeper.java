package dev.pginbox.inbox.postgres.internal.worker.membership;

import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.postgres.internal.worker.connection.NamedStatement;
import dev.pginbox.inbox.postgres.internal.worker.connection.SqlStates;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerSql;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The automatic partition mode's heartbeat ({@code inbox.worker_heartbeat}), on its own connection
 * and thread. What it returns is only the worker's belief about its partitions: every claim
 * re-checks it under the lease guard, in the claim's transaction.
 *
 * <p>When: every third of a lease; sooner after a heartbeat that changed the partitions held (after
 * {@link #QUICK}, doubling while nothing changes), because a partition given up while its former
 * owner was claiming from it comes free only when that claim transaction ends; and at once (at most
 * once per {@link #QUICK}) when the listener hears the inbox's lease channel, where heartbeats say
 * that the workers changed or partitions came free.
 */
public final class LeaseKeeper {

  private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);

  /** The shortest time between two heartbeats. */
  static final Duration QUICK = Duration.ofMillis(50);

  private static final long QUICK_NANOS = QUICK.toNanos();

  private final Jdbi jdbi;
  private final String inbox;
  private final String workerId;
  private final ClaimScope scope;
  private final WorkerEvents events;
  private final PartitionAssignment.Automatic assignment;
  private final Runnable onChange;
  private final long periodNanos;
  private WorkerConnection wc;
  private long lastSuccessNanos = System.nanoTime();

  /** The delay after a heartbeat that changed nothing (the heartbeat thread's only). */
  private long idleDelayNanos;

  private ScheduledExecutorService executor;

  /** The next heartbeat, null while one runs. Guarded by this. */
  private ScheduledFuture<?> next;

  private long nextDueNanos;
  private long lastStartNanos;

  /** {@code onChange}: what to do when the partitions held changed (look for their messages). */
  public LeaseKeeper(
      Jdbi jdbi,
      String inbox,
      String workerId,
      ClaimScope scope,
      WorkerEvents events,
      PartitionAssignment.Automatic assignment,
      Runnable onChange) {
    this.jdbi = jdbi;
    this.inbox = inbox;
    this.workerId = workerId;
    this.scope = scope;
    this.events = events;
    this.assignment = assignment;
    this.onChange = onChange;
    this.periodNanos = Math.max(QUICK_NANOS, assignment.leaseDuration().toNanos() / 3);
    this.idleDelayNanos = QUICK_NANOS;
  }

  /** Beats at once and then on its own, on {@code executor}'s one thread. */
  public void start(ScheduledExecutorService executor) {
    synchronized (this) {
      this.executor = executor;
      lastStartNanos = System.nanoTime() - QUICK_NANOS;
    }
    beatAt(System.nanoTime());
  }

  /** The lease channel spoke: beat now, or {@link #QUICK} after the last one began. */
  public void leasesChanged() {
    long now = System.nanoTime();
    long earliest;
    synchronized (this) {
      earliest = lastStartNanos + QUICK_NANOS;
    }
    beatAt(earliest - now > 0 ? earliest : now);
  }

  /** Makes the next heartbeat due at {@code due} unless one is due sooner. */
  private synchronized void beatAt(long due) {
    if (next != null) {
      if (nextDueNanos - due <= 0) {
        return;
      }
      next.cancel(false);
    }
    try {
      next =
          executor.schedule(this::beat, Math.max(0, due - System.nanoTime()), TimeUnit.NANOSECONDS);
      nextDueNanos = due;
    } catch (RejectedExecutionException e) {
      next = null; // stopping
    }
  }

  private void beat() {
    synchronized (this) {
      next = null;
      lastStartNanos = System.nanoTime();
    }
    boolean changed = heartbeat();
    idleDelayNanos = changed ? QUICK_NANOS : Math.min(periodNanos, idleDelayNanos * 2);
    beatAt(System.nanoTime() + idleDelayNanos);
  }

  /** One heartbeat; true when the partitions held changed. */
  public boolean heartbeat() {
    try {
      NamedStatement ps =
          connection()
              .statement(WorkerSql.HEARTBEAT)
              .setString("inbox", inbox)
              .setString("workerId", workerId)
              .setInt("partitions", assignment.partitions())
              .setString(
                  "leaseDuration", (assignment.leaseDuration().toNanos() / 1000) + " microseconds");
      int[] held;
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        Array array = rs.getArray(1);
        held = Arrays.stream((Integer[]) array.getArray()).mapToInt(Integer::intValue).toArray();
      }
      wc.connection().commit();
      lastSuccessNanos = System.nanoTime();
      return update(held);
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "inbox {}: heartbeat of worker {} failed: {}", inbox, workerId, SqlStates.describe(e));
      events.connectionLost(e, Duration.ZERO, false);
      closeConnection();
      if (System.nanoTime() - lastSuccessNanos > assignment.leaseDuration().toNanos()) {
        // Our leases have expired by now: stop counting for partitions others may hold.
        update(new int[0]);
      }
      idleDelayNanos = periodNanos; // a failed heartbeat is retried at the normal pace
      return false;
    }
  }

  private boolean update(int[] held) {
    if (Arrays.equals(held, scope.held())) {
      return false;
    }
    LOG.info(
        "inbox {}: worker {} now holds partitions {} of {}",
        inbox,
        workerId,
        Arrays.toString(held),
        assignment.partitions());
    scope.held(held);
    events.partitionsChanged(
        Arrays.stream(held).boxed().collect(java.util.stream.Collectors.toUnmodifiableSet()),
        assignment.partitions());
    onChange.run();
    return true;
  }

  /** Gives the leases back at an orderly stop, so the other workers need not wait for expiry. */
  public void leave() {
    try {
      connection()
          .statement(WorkerSql.LEAVE)
          .setString("inbox", inbox)
          .setString("workerId", workerId)
          .execute();
      wc.connection().commit();
      scope.held(new int[0]);
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "inbox {}: worker {} could not give its leases back ({}); they expire on their own",
          inbox,
          workerId,
          e.getMessage());
    } finally {
      closeConnection();
    }
  }

  /** The leases' own connection, opened when missing; its answers bounded (a half-open one). */
  private WorkerConnection connection() throws SQLException {
    if (wc == null) {
      wc =
          WorkerConnection.open(jdbi, inbox, true, "leases")
              .answersWithin(WorkerConnection.SHORT_ANSWER);
    }
    return wc;
  }

  public void closeConnection() {
    if (wc != null) {
      wc.close();
      wc = null;
    }
  }
}
