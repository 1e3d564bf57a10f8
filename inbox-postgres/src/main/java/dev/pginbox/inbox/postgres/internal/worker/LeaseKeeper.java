package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.PartitionAssignment;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The automatic partition mode's heartbeat ({@code inbox.worker_heartbeat}), every third of a
 * lease, on its own connection. What it returns is only the worker's belief about its partitions:
 * every claim re-checks it under the lease guard, in the claim's transaction.
 */
final class LeaseKeeper {

  private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);

  private final WorkerContext ctx;
  private final PartitionAssignment.Automatic assignment;
  private final Runnable onChange;
  private WorkerConnection wc;
  private long lastSuccessNanos = System.nanoTime();

  LeaseKeeper(WorkerContext ctx, PartitionAssignment.Automatic assignment, Runnable onChange) {
    this.ctx = ctx;
    this.assignment = assignment;
    this.onChange = onChange;
  }

  void heartbeat() {
    try {
      PreparedStatement ps = connection().statement("heartbeat");
      ps.setString(1, ctx.inbox());
      ps.setString(2, ctx.workerId());
      ps.setInt(3, assignment.partitions());
      ps.setString(4, (assignment.leaseDuration().toNanos() / 1000) + " microseconds");
      int[] held;
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        Array array = rs.getArray(1);
        held = Arrays.stream((Integer[]) array.getArray()).mapToInt(Integer::intValue).toArray();
      }
      wc.connection().commit();
      lastSuccessNanos = System.nanoTime();
      update(held);
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "inbox {}: heartbeat of worker {} failed: {}",
          ctx.inbox(),
          ctx.workerId(),
          SqlStates.describe(e));
      ctx.events().connectionLost(e, Duration.ZERO, false);
      closeConnection();
      if (System.nanoTime() - lastSuccessNanos > assignment.leaseDuration().toNanos()) {
        // Our leases have expired by now: stop counting for partitions others may hold.
        update(new int[0]);
      }
    }
  }

  private void update(int[] held) {
    if (!Arrays.equals(held, ctx.scope().held())) {
      LOG.info(
          "inbox {}: worker {} now holds partitions {} of {}",
          ctx.inbox(),
          ctx.workerId(),
          Arrays.toString(held),
          assignment.partitions());
      ctx.scope().held(held);
      ctx.events()
          .partitionsChanged(
              Arrays.stream(held).boxed().collect(java.util.stream.Collectors.toUnmodifiableSet()),
              assignment.partitions());
      onChange.run();
    }
  }

  /** Gives the leases back at an orderly stop, so the other workers need not wait for expiry. */
  void leave() {
    try {
      PreparedStatement ps = connection().statement("leave");
      ps.setString(1, ctx.inbox());
      ps.setString(2, ctx.workerId());
      ps.execute();
      wc.connection().commit();
      ctx.scope().held(new int[0]);
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "inbox {}: worker {} could not give its leases back ({}); they expire on their own",
          ctx.inbox(),
          ctx.workerId(),
          e.getMessage());
    } finally {
      closeConnection();
    }
  }

  /** The leases' own connection, opened when missing; its answers bounded (a half-open one). */
  private WorkerConnection connection() throws SQLException {
    if (wc == null) {
      wc =
          WorkerConnection.open(ctx.jdbi(), ctx.inbox(), true, "leases")
              .answersWithin(WorkerConnection.SHORT_ANSWER);
    }
    return wc;
  }

  void closeConnection() {
    if (wc != null) {
      wc.close();
      wc = null;
    }
  }
}
