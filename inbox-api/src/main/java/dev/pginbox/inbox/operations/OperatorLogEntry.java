package dev.pginbox.inbox.operations;

import java.time.Instant;
import java.util.Objects;

/**
 * One row of the audit trail {@code inbox.operator_log}: an operator action through the SQL API.
 *
 * @param role the database login that ran it
 * @param actor the name a tool authenticated (for example the web console's user), or null
 * @param action {@code replay}, {@code mark_processed}, {@code purge}, {@code drop_inbox}, ...
 * @param arguments the action's arguments as JSON text
 * @param rowsAffected messages changed, or null for actions on configuration
 */
public record OperatorLogEntry(
    long id,
    Instant loggedAt,
    String role,
    String actor,
    String applicationName,
    String action,
    String inbox,
    String arguments,
    Long rowsAffected) {

  public OperatorLogEntry {
    Objects.requireNonNull(action, "action");
  }
}
