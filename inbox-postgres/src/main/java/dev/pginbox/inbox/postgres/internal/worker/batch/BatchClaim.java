package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import java.sql.SQLException;
import java.util.List;

/**
 * What a batch claims: the buckets to ask first (a worker's preferred share of an ordered inbox,
 * every {@value #WHOLE_INBOX_EVERY}th claim the whole inbox), whether the claim sets the handler's
 * first savepoint in its round trip, whether the batch goes to the priorities below the top, and
 * after an empty claim the wait for a head another worker holds. One per {@link BatchRunner}: its
 * counters are that runner's.
 */
public final class BatchClaim {

  /**
   * A worker that prefers a share of an ordered inbox's buckets ({@link
   * ClaimScope#preferredOrClaimable}) asks the whole inbox in every n-th claim: the buckets no live
   * worker prefers (a worker that died and is still listed as live, a change in the number of
   * workers not seen by all yet) get that share of every worker's claims, oldest heads first.
   */
  static final int WHOLE_INBOX_EVERY = 8;

  /** A bound on the wait for a held head whatever the poll interval: stop is not held up. */
  private static final long MAX_HEAD_WAIT_MILLIS = 1_000;

  /** What a claim got, from which scope, and whether it set the first part's savepoint. */
  record Claimed(List<InboxMessage> messages, ClaimScope.Claimable scope, boolean savepointSet) {}

  private final ClaimScope scope;
  private final int lowerPriorityEvery;

  /**
   * The longest an empty claim waits for a held aggregate head: the poll interval, at most {@link
   * #MAX_HEAD_WAIT_MILLIS}; 0 for a runner that must not wait (runOnce).
   */
  private final int awaitMillis;

  /** Claims made, for {@link #WHOLE_INBOX_EVERY}. */
  private long claims;

  /** Batches kept (claimed and not given back): every n-th skips the top priority. */
  private long kept;

  /**
   * Whether the next claim sets the savepoint of the handler's first part in its round trip: while
   * the handler's last batch asked for the transaction (with a boundary every part does: its
   * savepoint is set before the handler runs). A handler that never touches the database pays
   * nothing for it; one that does pays no round trip of its own for its first savepoint.
   */
  private boolean claimSetsSavepoint = true;

  public BatchClaim(ClaimScope scope, WorkerOptions options, boolean waitsForHeldHeads) {
    this.scope = scope;
    this.lowerPriorityEvery = options.lowerPriorityEvery();
    this.awaitMillis =
        waitsForHeldHeads
            ? (int) Math.max(1, Math.min(MAX_HEAD_WAIT_MILLIS, options.pollInterval().toMillis()))
            : 0;
  }

  /** Claims up to {@code limit} messages: the preferred buckets first, then the rest. */
  Claimed claim(BatchStore store, int limit) throws SQLException {
    ClaimScope.Claimable all = scope.claimable();
    boolean savepoint = claimSetsSavepoint;
    ClaimScope.Claimable first =
        ++claims % WHOLE_INBOX_EVERY == 0 ? all : scope.preferredOrClaimable();
    List<InboxMessage> messages = all.nothing() ? List.of() : claim(store, limit, first, savepoint);
    if (messages.isEmpty() && first != all) {
      // Nothing claimable in the preferred buckets: the rest of the inbox, in the same transaction.
      messages = claim(store, limit, all, savepoint);
    }
    return new Claimed(messages, all, savepoint);
  }

  private List<InboxMessage> claim(
      BatchStore store, int limit, ClaimScope.Claimable from, boolean savepoint)
      throws SQLException {
    // Counted in kept batches: a claim given back (short of its minimum) keeps the turn.
    boolean lowerPriority = lowerPriorityEvery > 0 && (kept + 1) % lowerPriorityEvery == 0;
    return store.claim(new BatchStore.Claim(limit, from, savepoint, lowerPriority));
  }

  /** The batch claimed last is kept (handed to the handler). */
  void kept() {
    kept++;
  }

  /** Whether the handler asked for the transaction in the batch just handled. */
  void handlerTouched(boolean touched) {
    claimSetsSavepoint = touched;
  }

  /**
   * After an empty claim on an ordered inbox, the heads may only be held by other workers' open
   * batches: wait (at most a poll interval, the time the worker would otherwise sleep, and 1 s)
   * until the first one is released, so this worker claims its successor at once and workers that
   * wake together share the heads (docs/performance.md, "Ordered claim"). True when one was
   * released.
   */
  boolean awaitHeldHead(BatchStore store, ClaimScope.Claimable from) throws SQLException {
    if (awaitMillis == 0 || from.nothing()) {
      return false;
    }
    return store.awaitHeldHead(from, awaitMillis);
  }
}
