package dev.pginbox.inbox;

import dev.pginbox.inbox.operations.EventTypeStats;
import dev.pginbox.inbox.operations.InboxHealth;
import dev.pginbox.inbox.operations.InboxOperations;
import dev.pginbox.inbox.operations.InboxStatus;
import dev.pginbox.inbox.operations.OrderingGap;
import java.util.List;

/**
 * One inbox. Sending is idempotent by event id (an insert that does nothing on the inbox's key, the
 * event id, or the aggregate id and event id once distributed on Citus); every other operation
 * calls the inbox's SQL functions. Each call runs in its own transaction; to send inside your own
 * transaction use the implementation's overloads (e.g. {@code PostgresInbox}).
 */
public interface Inbox {

  String name();

  /** Writes a message; false when a message with its event id already exists. */
  boolean send(NewMessage message);

  /** Writes messages in one statement; returns how many were new. */
  int sendAll(List<NewMessage> messages);

  /** {@code inbox.inbox_health}: cheap, index-backed. */
  InboxHealth health();

  /** {@code inbox.inbox_status}: configuration, counts, rates, errors, retry distribution. */
  InboxStatus status();

  /** Up to {@code limit} waiting messages in claim order (the {@code <name>_pending} view). */
  List<InboxMessage> pending(int limit);

  /** Up to {@code limit} dead letters, oldest first (the {@code <name>_dlq} view). */
  List<InboxMessage> deadLetters(int limit);

  /** Per event type counts (the {@code <name>_stats} view). */
  List<EventTypeStats> stats();

  /** Marks a message processed in its own transaction; false if missing or already processed. */
  boolean markProcessed(String eventId);

  /** Records a failed attempt in its own transaction (retry with backoff, or dead). */
  MarkFailedResult markFailed(String eventId, String error);

  /** {@code inbox.inbox_ordering_gaps}; requires ordering to be enabled. */
  List<OrderingGap> orderingGaps();

  /** {@code inbox.inbox_is_my_partition}: the same answer as {@link Partitioning#isMyPartition}. */
  boolean isMyPartition(String aggregateId, int workerId, int totalWorkers);

  /** Operator views (blocked aggregates, lag, workers, DLQ groups) and audited actions. */
  InboxOperations operations();
}
