package dev.mailroom.cli;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description =
        "Puts dead letters back in the queue (inbox.replay_inbox_messages), by event id or by event type.")
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
  int run(DataSource dataSource, PrintStream out) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT inbox.replay_inbox_messages(?, p_event_ids => ?::text[], p_event_type => ?)")) {
      s.setString(1, config.queue());
      if (selector.eventIds != null) {
        s.setArray(2, c.createArrayOf("text", selector.eventIds.toArray()));
      } else {
        s.setNull(2, java.sql.Types.ARRAY);
      }
      s.setString(3, selector.eventType);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        out.println("replayed " + rs.getInt(1) + " message(s)");
      }
    }
    return 0;
  }
}
