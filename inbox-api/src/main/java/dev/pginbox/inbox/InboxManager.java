package dev.pginbox.inbox;

import dev.pginbox.inbox.operations.OperatorLogEntry;
import java.util.List;
import java.util.Map;

/**
 * Creates, configures and opens inboxes. Every operation calls the SQL API of schema {@code inbox}
 * (see docs/sql-reference.md); errors are {@link InboxException}s.
 */
public interface InboxManager {

  /** Installs or upgrades the SQL API (schema {@code inbox}); safe to call again. */
  void install();

  /** Creates inbox {@code name} with the default options and returns it. */
  default Inbox createInbox(String name) {
    return createInbox(name, InboxOptions.defaults());
  }

  /**
   * Creates inbox {@code name}: table {@code inbox.<name>}, its views and claim function.
   *
   * @throws InvalidInboxArgumentException for an invalid name or option (nothing is created)
   * @throws InboxAlreadyExistsException when the inbox exists or its table name is taken
   */
  Inbox createInbox(String name, InboxOptions options);

  /**
   * The options inbox {@code name} has now.
   *
   * @throws InboxNotFoundException when it does not exist
   */
  InboxOptions options(String name);

  /**
   * Gives an existing inbox {@code options} (every option but the channel, which stays), in one
   * audited step ({@code inbox.alter_inbox}). A new {@code maxRetries} rebuilds the inbox's claim
   * and dead-letter indexes, which blocks writes to it while they build.
   *
   * @return the options that changed, by their SQL names ({@code max_retries}, {@code
   *     backoff_base}...), sorted; empty when the inbox had them already
   * @throws InboxNotFoundException when it does not exist
   */
  List<String> alterInbox(String name, InboxOptions options);

  /**
   * Drops an inbox's views, functions and catalog rows. The message table of a managed inbox is
   * kept unless {@code cascade}; a tracked table is never dropped.
   */
  void dropInbox(String name, boolean cascade);

  /**
   * Strict per-aggregate ordering by {@code sequenceColumn} (a timestamp or an integer column;
   * {@code null}: {@code seq}, the arrival order, on a managed inbox, {@code received_at} on a
   * tracked table).
   */
  void enableOrdering(String name, String aggregateColumn, String sequenceColumn);

  /**
   * Strict per-aggregate ordering by {@code aggregate_id}, in arrival order ({@code seq}; a tracked
   * table: {@code received_at}).
   */
  default void enableOrdering(String name) {
    enableOrdering(name, "aggregate_id", null);
  }

  void disableOrdering(String name);

  /**
   * Claim order by {@code priorities} of {@code column}'s value (lower first; unmapped values 999).
   * A managed inbox takes {@code event_type}, {@code source} or {@code aggregate_id}.
   */
  void enablePriority(String name, String column, Map<String, Integer> priorities);

  /** An inbox over an existing table, which is not modified. */
  Inbox enableTracking(TrackingSpec spec);

  /**
   * The inbox {@code name}.
   *
   * @throws InboxNotFoundException when it does not exist
   */
  Inbox inbox(String name);

  boolean exists(String name);

  /** The names of all inboxes, sorted. */
  List<String> names();

  /**
   * The audit trail of every inbox ({@code inbox.operator_log}), newest first, before {@code
   * beforeId} (null: from the newest); {@code limit} 1..1000.
   */
  List<OperatorLogEntry> auditLog(int limit, Long beforeId);

  /**
   * The database login role this manager connects as ({@code session_user}): the role to grant a
   * privilege that a call was refused for lack of (SQLSTATE 42501), and the {@code role_name} of
   * its audit rows.
   */
  String loginRole();
}
