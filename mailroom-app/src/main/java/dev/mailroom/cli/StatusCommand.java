package dev.mailroom.cli;

import java.io.PrintStream;
import java.sql.SQLException;
import javax.sql.DataSource;
import picocli.CommandLine.Command;

@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = "Prints inbox.inbox_status(MAILROOM_QUEUE_NAME) as JSON.")
final class StatusCommand extends OperatorCommand {

  @Override
  int run(DataSource dataSource, PrintStream out) throws SQLException {
    out.println(
        OperatorQueries.json(
            dataSource, "SELECT jsonb_pretty(to_jsonb(inbox.inbox_status(?)))", config.queue()));
    return 0;
  }
}
