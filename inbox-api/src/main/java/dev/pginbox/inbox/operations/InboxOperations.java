package dev.pginbox.inbox.operations;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What an operator needs to see and do on one inbox: the SQL API's operator views (see
 * docs/operations.md) and its audited actions. Every list is bounded; every action writes a row to
 * {@code inbox.operator_log} in the same transaction, with the {@linkplain #asActor actor} if set.
 */
public interface InboxOperations {

  /** The maximum page size of every listing. */
  int MAX_LIMIT = 1000;

  /** The same operations, recording {@code actor} (an authenticated user name) in the audit. */
  InboxOperations asActor(String actor);

  /** Aggregates whose head cannot be claimed now, with the reason; empty without ordering. */
  List<BlockedAggregate> blockedAggregates(int limit);

  /** The backlog and owner of each partition (one row when the inbox is not partitioned). */
  List<PartitionLag> partitionLag();

  /** Live workers and those gone within the last hour. */
  List<WorkerInfo> workers();

  /** Dead letters grouped by event type and normalised error, largest first. */
  List<DlqGroup> dlqGroups(int limit);

  /**
   * Dead letters oldest first, of the whole DLQ ({@code selection} null), an event type or a group
   * (not by ids), after the given row (both null: from the start).
   */
  List<DeadLetter> deadLetterPage(
      DeadLetterSelection selection, int limit, Instant afterReceivedAt, String afterEventId);

  /** One message in full, whatever its state. */
  Optional<MessageDetail> message(String eventId);

  /**
   * Messages by event id, aggregate id or payload, whatever their state ({@code
   * inbox.find_messages}): the keys given (null or blank: not a key; at least one) must all match.
   * {@code payloadMatch} is a JSON object the payload must contain ({@code {"customer": {"id":
   * 42}}}) or a key path and a value ({@code customer.id = 42}). At most {@code limit} (1..{@value
   * #MAX_LIMIT}) messages, oldest first. An event id is a primary-key lookup; the other keys use an
   * index when the table has one, else look at no more than the first 100,000 rows (see
   * docs/operations.md, "Find a message"). Input the database rejects (invalid JSON, keys over 4096
   * characters) is an {@link InvalidInboxArgumentException} that says why.
   */
  List<MessageDetail> findMessages(
      String eventId, String aggregateId, String payloadMatch, int limit);

  /**
   * Messages processed and attempts failed per minute over the last {@code minutes} (1..1440),
   * oldest first.
   */
  List<ThroughputPoint> throughput(int minutes);

  /** What vacuum still owes the inbox's table; catalogs and statistics only, cheap at any size. */
  VacuumState vacuum();

  /** How many dead letters the selection holds now: what a replay or discard would touch. */
  long countDeadLetters(DeadLetterSelection selection);

  /** Replays the selected dead letters (claimable again at once); returns how many. Audited. */
  int replay(DeadLetterSelection selection);

  /** Marks the selected dead letters processed (gives up on them); returns how many. Audited. */
  int discard(DeadLetterSelection selection);

  /** One bounded retention step ({@code inbox.purge_inbox}) now. Audited when it changed rows. */
  PurgeResult purge(int batchSize);

  /** The audit trail of this inbox, newest first, before {@code beforeId} (null: newest). */
  List<OperatorLogEntry> auditLog(int limit, Long beforeId);

  /**
   * Pauses consumption: within 200 ms every claim of the inbox, and so every worker, takes nothing
   * until {@link #resume()}. Messages still arrive. Audited. False when it was paused already.
   */
  boolean pause();

  /** Resumes consumption paused by {@link #pause()}. Audited. False when it was not paused. */
  boolean resume();

  /** Since when consumption is paused; null when it is not. */
  Instant pausedSince();

  /**
   * Makes the given messages that are backing off after a failure due now (an ordered inbox still
   * hands them out only as their aggregate's head). Dead letters are {@link #replay replayed}
   * instead. Audited. Returns how many were made due.
   */
  int retryNow(List<String> eventIds);
}
