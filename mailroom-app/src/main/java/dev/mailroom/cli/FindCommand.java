package dev.mailroom.cli;

import dev.pginbox.inbox.operations.MessageDetail;
import java.io.PrintStream;
import javax.sql.DataSource;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "find",
    mixinStandardHelpOptions = true,
    description =
        "Finds messages in any state by event id, account (aggregate id) or payload, oldest first."
            + " An event id is looked up directly; the other keys use an index where the table has"
            + " one, and otherwise look at no more than the first 100,000 messages"
            + " (docs/operations.md, \"Find a message\").")
final class FindCommand extends OperatorCommand {

  /** At least one key; those given must all match. */
  static final class Keys {
    @Option(names = "--event-id", description = "The message's event id.")
    String eventId;

    @Option(names = "--aggregate-id", description = "The account (aggregate id).")
    String aggregateId;

    @Option(
        names = "--payload",
        description =
            "A key path and the value the payload holds there (account = 42, token_id = 7),"
                + " or a JSON object the payload contains.")
    String payload;
  }

  @ArgGroup(exclusive = false, multiplicity = "1")
  Keys keys;

  @Option(
      names = "--limit",
      defaultValue = "50",
      description = "At most this many (1..1000, default ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--json", description = "A JSON array (payloads included) instead of a table.")
  boolean json;

  @Override
  int run(DataSource dataSource, PrintStream out) {
    Rows rows =
        json
            ? new Rows(
                "event_id",
                "state",
                "event_type",
                "aggregate_id",
                "received_at",
                "retry_count",
                "error",
                "payload")
            : new Rows(
                "event_id",
                "state",
                "event_type",
                "aggregate_id",
                "received_at",
                "retry_count",
                "error");
    for (MessageDetail m :
        inbox(dataSource)
            .operations()
            .findMessages(keys.eventId, keys.aggregateId, keys.payload, limit)) {
      if (json) {
        rows.add(
            m.eventId(),
            m.state(),
            m.eventType(),
            m.aggregateId(),
            String.valueOf(m.receivedAt()),
            m.retryCount(),
            m.error(),
            m.payload());
      } else {
        rows.add(
            m.eventId(),
            m.state(),
            m.eventType(),
            m.aggregateId(),
            String.valueOf(m.receivedAt()),
            m.retryCount(),
            m.error());
      }
    }
    rows.print(out, json);
    return 0;
  }
}
