package dev.mailroom.cli;

import dev.pginbox.inbox.Inbox;
import java.io.PrintStream;
import java.util.List;
import javax.sql.DataSource;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = "Puts dead letters back in the queue, by event id or by event type.")
final class ReplayCommand extends OperatorCommand {

  static final class Selector {
    @Option(
        names = "--event-id",
        required = true,
        split = ",",
        description = "Event ids (token-<id>), repeatable or comma-separated.")
    List<String> eventIds;

    @Option(
        names = "--event-type",
        required = true,
        description = "Every dead letter of this type (activation, password_recovery).")
    String eventType;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Selector selector;

  @Override
  int run(DataSource dataSource, PrintStream out) {
    Inbox inbox = inbox(dataSource);
    int replayed =
        selector.eventIds != null
            ? inbox.replay(selector.eventIds)
            : inbox.replayEventType(selector.eventType);
    out.println("replayed " + replayed + " message(s)");
    return 0;
  }
}
