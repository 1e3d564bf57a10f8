package dev.mailroom.ops;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mailroom.config.ConnectionSettings;
import dev.mailroom.config.DataSources;
import java.time.Duration;

/**
 * The operator console's own connections: a small bounded pool, apart from the worker's, under
 * {@code application_name} {@value #APPLICATION_NAME}. Without it every query of a page opened a
 * connection of its own (8-10 per page, each a new backend process).
 */
final class ConsolePool {

  static final String APPLICATION_NAME = "mailroom-console";

  /** As many as the HTTP server has threads: one page at a time per thread, one query at a time. */
  static final int SIZE = 4;

  /** How long a page waits for a connection while all of them serve other pages. */
  static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(5);

  /** Idle connections are closed after this: a console nobody looks at holds none. */
  static final Duration IDLE_TIMEOUT = Duration.ofMinutes(1);

  private ConsolePool() {}

  static HikariDataSource open(ConnectionSettings database) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(APPLICATION_NAME);
    config.setDataSource(DataSources.of(database.withApplicationName(APPLICATION_NAME)));
    config.setMaximumPoolSize(SIZE);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
    config.setIdleTimeout(IDLE_TIMEOUT.toMillis());
    // Start without a connection: a database that is down at start-up is the worker's to wait
    // for; the console's pages answer again once it is back.
    config.setInitializationFailTimeout(-1);
    return new HikariDataSource(config);
  }
}
