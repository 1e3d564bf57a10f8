package dev.mailroom.cli;

import dev.pginbox.inbox.operations.DeadLetterSelection;
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

  @Option(
      names = "--group",
      description =
          "With --event-type: only the dead letters of this error group, as `dlq --groups` prints it.")
  String group;

  @Override
  int run(DataSource dataSource, PrintStream out) {
    if (group != null && selector.eventType == null) {
      err().println("error: --group needs --event-type");
      return 2;
    }
    DeadLetterSelection selection =
        selector.eventIds != null
            ? DeadLetterSelection.ids(selector.eventIds)
            : group != null
                ? DeadLetterSelection.group(selector.eventType, group)
                : DeadLetterSelection.eventType(selector.eventType);
    // The audit log records the operating-system user as the actor.
    int replayed =
        inbox(dataSource).operations().asActor(System.getProperty("user.name")).replay(selection);
    out.println("replayed " + replayed + " message(s)");
    return 0;
  }
}
