package dev.mailroom.cli;

import java.io.PrintStream;
import javax.sql.DataSource;
import picocli.CommandLine.Command;

@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = "Prints the status of the inbox MAILROOM_QUEUE_NAME as JSON.")
final class StatusCommand extends OperatorCommand {

  @Override
  int run(DataSource dataSource, PrintStream out) {
    out.println(inbox(dataSource).status().json());
    return 0;
  }
}
