package dev.mailroom.cli;

import dev.mailroom.schema.SchemaInstaller;
import java.io.PrintStream;
import javax.sql.DataSource;
import picocli.CommandLine.Command;

@Command(
    name = "install",
    mixinStandardHelpOptions = true,
    description =
        "Installs or upgrades the inbox SQL API and the mailroom schema (re-runnable), "
            + "creating the inbox MAILROOM_QUEUE_NAME notifying on MAILROOM_CHANNEL_NAME.")
final class InstallCommand extends OperatorCommand {

  @Override
  int run(DataSource dataSource, PrintStream out) {
    SchemaInstaller.install(dataSource, config.queue(), config.channel());
    out.println("installed; queue=" + config.queue() + " channel=" + config.channel());
    return 0;
  }
}
