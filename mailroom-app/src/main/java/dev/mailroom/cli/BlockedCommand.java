package dev.mailroom.cli;

import dev.pginbox.inbox.operations.BlockedAggregate;
import java.io.PrintStream;
import java.util.Locale;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "blocked",
    mixinStandardHelpOptions = true,
    description =
        "Lists the aggregates (accounts) whose next message cannot be processed now, and why:"
            + " dead_letter, backing_off (until when) or claimed (by which database backend).")
final class BlockedCommand extends OperatorCommand {

  @Option(names = "--limit", defaultValue = "100", description = "At most this many (1..1000).")
  int limit;

  @Option(names = "--json", description = "A JSON array instead of a table.")
  boolean json;

  @Override
  int run(DataSource dataSource, PrintStream out) {
    Rows rows =
        new Rows(
            "aggregate_id",
            "reason",
            "event_id",
            "event_type",
            "blocked_until",
            "claimed_by_pid",
            "waiting_behind",
            "blocked_since",
            "error");
    for (BlockedAggregate b : inbox(dataSource).operations().blockedAggregates(limit)) {
      rows.add(
          b.aggregateId(),
          b.reason().name().toLowerCase(Locale.ROOT),
          b.eventId(),
          b.eventType(),
          b.blockedUntil() == null ? null : b.blockedUntil().toString(),
          b.claimedByPid(),
          b.waitingBehind(),
          b.blockedSince() == null ? null : b.blockedSince().toString(),
          b.error());
    }
    rows.print(out, json);
    return 0;
  }
}
