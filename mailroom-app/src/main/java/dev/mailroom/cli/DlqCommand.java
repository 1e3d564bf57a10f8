package dev.mailroom.cli;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
  int run(DataSource dataSource, PrintStream out) throws SQLException {
    // The queue name passed InboxNames validation (EnvironmentConfig), so it is a safe identifier.
    String sql =
        "SELECT event_id, event_type, aggregate_id, retry_count, received_at, error FROM inbox."
            + config.queue()
            + "_dlq LIMIT ?";
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setInt(1, Math.max(0, limit));
      try (ResultSet rs = s.executeQuery()) {
        out.println("event_id\tevent_type\taggregate_id\tretry_count\treceived_at\terror");
        int n = 0;
        while (rs.next()) {
          n++;
          out.println(
              rs.getString(1)
                  + "\t"
                  + rs.getString(2)
                  + "\t"
                  + rs.getString(3)
                  + "\t"
                  + rs.getInt(4)
                  + "\t"
                  + rs.getObject(5, java.time.OffsetDateTime.class)
                  + "\t"
                  + String.valueOf(rs.getString(6)).replace('\n', ' ').replace('\t', ' '));
        }
        parent.io.stderr().println(n + " dead letter(s)");
      }
    }
    return 0;
  }
}
