package dev.mailroom.cli;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.operations.DlqGroup;
import java.io.PrintStream;
import java.util.List;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "dlq",
    mixinStandardHelpOptions = true,
    description =
        "Lists the dead letters of the inbox (tab-separated: event id, type, account, retries,"
            + " received, error), or with --groups how many failed with which error.")
final class DlqCommand extends OperatorCommand {

  @Option(
      names = "--limit",
      defaultValue = "100",
      description = "At most this many (default ${DEFAULT-VALUE}).")
  int limit;

  @Option(
      names = "--groups",
      description =
          "Dead letters grouped by event type and error (numbers and ids stripped), largest first.")
  boolean groups;

  @Option(names = "--json", description = "A JSON array instead of the listing.")
  boolean json;

  @Override
  int run(DataSource dataSource, PrintStream out) {
    if (groups) {
      Rows rows =
          new Rows(
              "event_type",
              "error_group",
              "count",
              "first_died_at",
              "last_died_at",
              "first_seen",
              "last_seen",
              "example_event_id");
      for (DlqGroup g :
          inbox(dataSource).operations().dlqGroups(Math.min(Math.max(1, limit), 1000))) {
        rows.add(
            g.eventType(),
            g.errorGroup(),
            g.count(),
            g.firstDiedAt() == null ? null : g.firstDiedAt().toString(),
            g.lastDiedAt() == null ? null : g.lastDiedAt().toString(),
            String.valueOf(g.firstSeen()),
            String.valueOf(g.lastSeen()),
            g.exampleEventId());
      }
      rows.print(out, json);
      return 0;
    }
    List<InboxMessage> dead = inbox(dataSource).deadLetters(Math.max(0, limit));
    if (json) {
      Rows rows =
          new Rows("event_id", "event_type", "aggregate_id", "retry_count", "received_at", "error");
      dead.forEach(
          m ->
              rows.add(
                  m.eventId(),
                  m.eventType(),
                  m.aggregateId(),
                  m.retryCount(),
                  String.valueOf(m.receivedAt()),
                  m.error()));
      rows.print(out, true);
      return 0;
    }
    out.println("event_id\tevent_type\taggregate_id\tretry_count\treceived_at\terror");
    for (InboxMessage m : dead) {
      out.println(
          String.join(
              "\t",
              m.eventId(),
              String.valueOf(m.eventType()),
              String.valueOf(m.aggregateId()),
              String.valueOf(m.retryCount()),
              String.valueOf(m.receivedAt()),
              oneLine(m.error())));
    }
    err().println(dead.size() + " dead letter(s)");
    return 0;
  }

  /** Keeps one dead letter on one line of the tab-separated listing. */
  private static String oneLine(String text) {
    return String.valueOf(text).replace('\n', ' ').replace('\r', ' ').replace('\t', ' ');
  }
}
