package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The batch core's storage in memory, without a database: for the core's unit tests and for {@link
 * InMemoryBatches}, the test kit's handler trials. A queue of messages in claim order, one
 * transaction at a time ({@link #transactions()}), savepoints over the handler's writes (a list of
 * strings the handler reaches through {@code unwrap(Writes.class)}), and a commit that can be made
 * to fail. A failed attempt's backoff is modelled as a place at the end of the claim order, and a
 * message is dead after {@code maxRetries} failed attempts, as {@code inbox.mark_failed} counts
 * them. What PostgreSQL really does is for the end-to-end tests; this keeps only the contract the
 * batch core relies on.
 */
final class InMemoryBatchStore implements BatchStore {

  /** What a handler writes in the batch's transaction. */
  static final class Writes {
    private final List<String> rows = new ArrayList<>();

    void add(String row) {
      rows.add(row);
    }
  }

  /** A message's state: waiting, processed, or dead, with its failed attempts. */
  enum State {
    PENDING,
    PROCESSED,
    DEAD
  }

  private final int maxRetries;
  private final Map<String, InboxMessage> messages = new LinkedHashMap<>();
  private final Map<String, State> states = new HashMap<>();
  private final Map<String, List<String>> errors = new HashMap<>();
  private final List<String> committedWrites = new ArrayList<>();

  // The open transaction.
  private final List<String> claimed = new ArrayList<>();
  private final List<Failure> recorded = new ArrayList<>();
  private final List<String> released = new ArrayList<>();
  private final Writes writes = new Writes();
  private int savepoint = -1;
  private Predicate<List<String>> commitFails = w -> false;

  int savepointsSet;
  int rollbacksToSavepoint;
  int transactionsCommitted;
  boolean cancelled;
  boolean aborted;

  InMemoryBatchStore(int maxRetries) {
    this.maxRetries = maxRetries;
  }

  void add(String... eventIds) {
    for (String id : eventIds) {
      add(new InboxMessage(id, "t", "s", null, "{}", null, null, null, 0, null, 0, 0, 0));
    }
  }

  void add(InboxMessage m) {
    messages.put(m.eventId(), m);
    states.put(m.eventId(), State.PENDING);
  }

  private static InboxMessage failedOnce(InboxMessage m, String error) {
    return new InboxMessage(
        m.eventId(),
        m.eventType(),
        m.source(),
        m.aggregateId(),
        m.payload(),
        m.receivedAt(),
        null,
        error,
        m.retryCount() + 1,
        m.traceId(),
        m.seq(),
        m.priority(),
        m.bucket());
  }

  /** From now on a commit fails (as a deferred constraint would) when its writes match. */
  void failCommitWhen(Predicate<List<String>> writesBreakTheCommit) {
    this.commitFails = writesBreakTheCommit;
  }

  State state(String eventId) {
    return states.get(eventId);
  }

  List<String> errors(String eventId) {
    return errors.getOrDefault(eventId, List.of());
  }

  List<String> committedWrites() {
    return committedWrites;
  }

  BatchTransactions transactions() {
    return new BatchTransactions() {
      @Override
      public <T> T inTransaction(Work<T> work) throws SQLException {
        boolean[] rollbackOnly = {false};
        T result;
        try {
          result = work.run(InMemoryBatchStore.this, () -> rollbackOnly[0] = true);
        } catch (SQLException | RuntimeException e) {
          rollback();
          throw e;
        }
        if (rollbackOnly[0]) {
          rollback();
        } else {
          commit();
        }
        return result;
      }
    };
  }

  private void commit() throws SQLException {
    if (commitFails.test(writes.rows)) {
      rollback();
      throw new SQLException("deferred constraint violated", "23505");
    }
    for (String id : claimed) {
      states.put(id, State.PROCESSED);
    }
    for (String id : released) {
      states.put(id, State.PENDING);
    }
    for (Failure f : recorded) {
      List<String> attempts = errors.computeIfAbsent(f.eventId(), id -> new ArrayList<>());
      attempts.add(f.error());
      states.put(
          f.eventId(), f.dead() || attempts.size() >= maxRetries ? State.DEAD : State.PENDING);
      // Its backoff puts it behind the messages waiting now, with its count and error.
      InboxMessage m = messages.remove(f.eventId());
      messages.put(f.eventId(), failedOnce(m, f.error()));
    }
    committedWrites.addAll(writes.rows);
    transactionsCommitted++;
    endTransaction();
  }

  private void rollback() {
    endTransaction();
  }

  private void endTransaction() {
    claimed.clear();
    recorded.clear();
    released.clear();
    writes.rows.clear();
    savepoint = -1;
  }

  @Override
  public List<InboxMessage> claim(Claim claim) {
    List<InboxMessage> batch = new ArrayList<>();
    for (InboxMessage m : messages.values()) {
      if (batch.size() == claim.limit()) {
        break;
      }
      if (states.get(m.eventId()) == State.PENDING && !claimed.contains(m.eventId())) {
        batch.add(m);
        claimed.add(m.eventId());
      }
    }
    if (claim.setSavepoint()) {
      savepoint = writes.rows.size();
    }
    return batch;
  }

  @Override
  public boolean awaitHeldHead(ClaimScope.Claimable scope, int maxMillis) {
    return false;
  }

  @Override
  public boolean blocksOthers() {
    return false;
  }

  @Override
  public void setSavepoint(boolean releasePrevious) {
    savepointsSet++;
    savepoint = writes.rows.size();
  }

  @Override
  public void rollbackToSavepoint() {
    rollbacksToSavepoint++;
    writes.rows.subList(savepoint, writes.rows.size()).clear();
  }

  @Override
  public List<Recorded> recordFailures(List<Failure> failures) {
    List<Recorded> rows = new ArrayList<>();
    for (Failure f : failures) {
      recorded.add(f);
      claimed.remove(f.eventId());
      boolean dead = f.dead() || errors(f.eventId()).size() + 1 >= maxRetries;
      rows.add(new Recorded(f.eventId(), dead));
    }
    return rows;
  }

  @Override
  public void releaseClaimed(List<String> eventIds) {
    claimed.removeAll(eventIds);
    released.addAll(eventIds);
  }

  @Override
  public List<Recorded> endTimedOut(
      boolean rollBackPart, List<Failure> failures, List<String> giveBack) throws SQLException {
    if (rollBackPart) {
      rollbackToSavepoint();
    }
    List<Recorded> rows = recordFailures(failures);
    releaseClaimed(giveBack);
    commit();
    return rows;
  }

  @Override
  public Unreadable claimUnreadable(ClaimScope.Claimable scope) {
    for (InboxMessage m : messages.values()) {
      if (states.get(m.eventId()) == State.PENDING) {
        claimed.add(m.eventId());
        return new Unreadable(m.eventId(), m.payload().length());
      }
    }
    return null;
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    if (type != Writes.class) {
      throw new UnsupportedOperationException(
          "no database here: "
              + type.getName()
              + " is not available in memory; a handler that writes through its transaction is"
              + " tested on a real PostgreSQL (docs/testing.md)");
    }
    return type.cast(writes);
  }

  @Override
  public void cancel() {
    cancelled = true;
  }

  @Override
  public void abort() {
    aborted = true;
    endTransaction();
  }

  @Override
  public boolean isClosed() {
    return aborted;
  }
}
