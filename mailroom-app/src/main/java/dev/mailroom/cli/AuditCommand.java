package dev.mailroom.cli;

import dev.pginbox.inbox.operations.OperatorLogEntry;
import java.io.PrintStream;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    description =
        "The audit trail of operator actions on the inbox (replay, discard, purge, option"
            + " changes), newest first: when, who (actor and database role), what, how many rows.")
final class AuditCommand extends OperatorCommand {

  @Option(names = "--limit", defaultValue = "50", description = "At most this many (1..1000).")
  int limit;

  @Option(names = "--before", description = "Only entries older than this id (paging).")
  Long before;

  @Option(names = "--json", description = "A JSON array instead of a table.")
  boolean json;

  @Override
  int run(DataSource dataSource, PrintStream out) {
    Rows rows =
        new Rows(
            "id",
            "logged_at",
            "actor",
            "role",
            "application",
            "action",
            "rows_affected",
            "arguments");
    for (OperatorLogEntry e : inbox(dataSource).operations().auditLog(limit, before)) {
      rows.add(
          e.id(),
          e.loggedAt() == null ? null : e.loggedAt().toString(),
          e.actor(),
          e.role(),
          e.applicationName(),
          e.action(),
          e.rowsAffected(),
          e.arguments());
    }
    rows.print(out, json);
    return 0;
  }
}
