package dev.mailroom.cli;

import java.io.PrintStream;
import java.sql.SQLException;
import javax.sql.DataSource;
import picocli.CommandLine.Command;

@Command(
    name = "health",
    mixinStandardHelpOptions = true,
    description =
        "Prints inbox.inbox_health(MAILROOM_QUEUE_NAME) as JSON; exits with 1 when the status is critical.")
final class HealthCommand extends OperatorCommand {

  @Override
  int run(DataSource dataSource, PrintStream out) throws SQLException {
    String json =
        OperatorQueries.json(
            dataSource, "SELECT jsonb_pretty(to_jsonb(inbox.inbox_health(?)))", config.queue());
    out.println(json);
    return json.contains("\"status\": \"critical\"") ? 1 : 0;
  }
}
