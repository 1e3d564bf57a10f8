package dev.mailroom.cli;

import dev.pginbox.inbox.InboxMessage;
import java.io.PrintStream;
import java.util.List;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "dlq",
    mixinStandardHelpOptions = true,
    description =
        "Lists the dead letters of the inbox (tab-separated: event id, type, account, retries, received, error).")
final class DlqCommand extends OperatorCommand {

  @Option(
      names = "--limit",
      defaultValue = "100",
      description = "At most this many (default ${DEFAULT-VALUE}).")
  int limit;

  @Override
  int run(DataSource dataSource, PrintStream out) {
    List<InboxMessage> dead = inbox(dataSource).deadLetters(Math.max(0, limit));
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
