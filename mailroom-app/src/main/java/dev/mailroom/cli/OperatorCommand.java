package dev.mailroom.cli;

import dev.mailroom.config.ConfigException;
import dev.mailroom.config.ConnectionSettings;
import dev.mailroom.config.DataSources;
import dev.mailroom.config.EnvironmentConfig;
import dev.mailroom.config.MailroomConfig;
import dev.mailroom.embedded.EmbeddedDatabase;
import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine.ParentCommand;

/**
 * Shared by the operator subcommands: the database and inbox come from the same environment as the
 * collector. Without MAILROOM_DATABASE_URL they talk to the embedded server of a running collector
 * (127.0.0.1:MAILROOM_EMBEDDED_PORT, database mailroom) with the password from its data directory
 * (MAILROOM_DATA_DIR).
 */
abstract class OperatorCommand implements Callable<Integer> {

  @ParentCommand MailroomCommand parent;

  MailroomConfig config;

  @Override
  public final Integer call() {
    try {
      config = EnvironmentConfig.read(parent.io.env());
    } catch (ConfigException e) {
      parent.io.stderr().println("error: " + e.getMessage());
      return ConfigException.EXIT_CODE;
    }
    try {
      return run(DataSources.of(database()), out());
    } catch (ConfigException e) {
      parent.io.stderr().println("error: " + e.getMessage());
      return ConfigException.EXIT_CODE;
    } catch (SQLException | IOException | RuntimeException e) {
      parent.io.stderr().println("error: " + e.getMessage());
      return 1;
    }
  }

  abstract int run(DataSource dataSource, PrintStream out) throws SQLException;

  /** The configured inbox (MAILROOM_QUEUE_NAME), through the library's public API. */
  Inbox inbox(DataSource dataSource) {
    return PostgresInboxManager.create(dataSource).inbox(config.queue());
  }

  PrintStream err() {
    return parent.io.stderr();
  }

  private ConnectionSettings database() throws IOException {
    if (config.database() != null) {
      return config.database();
    }
    return EmbeddedDatabase.clientSettings(config.dataDir(), config.embeddedPort());
  }

  PrintStream out() {
    return new PrintStream(parent.io.stdout(), true, StandardCharsets.UTF_8);
  }
}
