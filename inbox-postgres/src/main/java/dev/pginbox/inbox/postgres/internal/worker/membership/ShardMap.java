package dev.pginbox.inbox.postgres.internal.worker.membership;

import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.postgres.internal.worker.connection.SqlStates;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerSql;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shards a worker of a distributed inbox claims from, and where they are: the automatic
 * partition mode's leases with one partition per shard (a {@link LeaseKeeper} with as many
 * partitions as the inbox has shards), then {@code inbox.inbox_shards} read again, so a shard a
 * rebalance moved is followed to its new node. Both on the coordinator; {@link #refresh} on the
 * leases thread only, {@link #held} from any thread.
 *
 * <p>The leases spread the shards over the workers; they do not guard the claims, which run on
 * other nodes: the claim's row locks keep a message from being handled twice, and a claim on a node
 * that no longer holds the shard takes nothing ({@code inbox.claim_shard}).
 */
public final class ShardMap {

  private static final Logger LOG = LoggerFactory.getLogger(ShardMap.class);

  private final Jdbi coordinator;
  private final String inbox;
  private final String workerId;
  private final WorkerEvents events;
  private final Duration lease;
  private WorkerConnection wc;
  private LeaseKeeper keeper;
  private volatile ClaimScope scope;
  private volatile ShardSettings settings;
  private volatile List<Shard> held = List.of();

  public ShardMap(
      Jdbi coordinator, String inbox, String workerId, WorkerEvents events, Duration lease) {
    this.coordinator = coordinator;
    this.inbox = inbox;
    this.workerId = workerId;
    this.events = events;
    this.lease = lease;
  }

  /** How often {@link #refresh} runs: a third of the lease, as the heartbeat of the leases. */
  public Duration period() {
    return lease.dividedBy(3);
  }

  /** The shards this worker holds, as the last refresh found them. */
  public List<Shard> held() {
    return held;
  }

  /** The inbox's settings; null until the coordinator was first reached. */
  public ShardSettings settings() {
    return settings;
  }

  /** The partitions (shards in hash order) this worker holds. */
  public int[] partitions() {
    return scope == null ? new int[0] : scope.held();
  }

  /** One heartbeat, then where the shards held are now. */
  public void refresh() {
    try {
      if (keeper == null) {
        ShardSettings read = ShardSettings.read(connection(), inbox);
        PartitionAssignment.Automatic shards =
            new PartitionAssignment.Automatic(read.shards(), lease);
        scope = new ClaimScope(shards, inbox, workerId);
        keeper = new LeaseKeeper(coordinator, inbox, workerId, scope, events, shards, () -> {});
        settings = read;
      }
    } catch (SQLException | RuntimeException e) {
      lost(e);
      return;
    }
    keeper.heartbeat();
    int[] partitions = scope.held();
    try {
      held = partitions.length == 0 ? List.of() : locate(partitions);
    } catch (SQLException | RuntimeException e) {
      lost(e);
      // Until the next refresh: the shards still held, where they were.
      held = held.stream().filter(s -> contains(partitions, s.partition())).toList();
    }
  }

  private List<Shard> locate(int[] partitions) throws SQLException {
    return all(connection(), inbox).stream()
        .filter(s -> contains(partitions, s.partition()))
        .toList();
  }

  /** Every shard of {@code inbox} in hash order, where it is now, read on {@code coordinator}. */
  public static List<Shard> all(WorkerConnection coordinator, String inbox) throws SQLException {
    List<Shard> shards = new ArrayList<>();
    try (ResultSet rs =
        coordinator.statement(WorkerSql.INBOX_SHARDS).setString("inbox", inbox).executeQuery()) {
      while (rs.next()) {
        shards.add(new Shard(rs.getInt(1), rs.getString(2), rs.getString(3), rs.getInt(4)));
      }
    }
    return List.copyOf(shards);
  }

  private static boolean contains(int[] partitions, int partition) {
    return Arrays.stream(partitions).anyMatch(p -> p == partition);
  }

  private void lost(Exception e) {
    LOG.warn("inbox {}: reading the shards failed: {}", inbox, SqlStates.describe(e));
    events.connectionLost(e, Duration.ZERO, false);
    close();
  }

  /** Gives the leases back (an orderly stop) and closes the connections. */
  public void leave() {
    if (keeper != null) {
      keeper.leave();
    }
    held = List.of();
    close();
  }

  private WorkerConnection connection() throws SQLException {
    if (wc == null) {
      wc =
          WorkerConnection.open(coordinator, inbox, false, "shards")
              .answersWithin(WorkerConnection.SHORT_ANSWER);
    }
    return wc;
  }

  private void close() {
    if (wc != null) {
      wc.close();
      wc = null;
    }
  }
}
