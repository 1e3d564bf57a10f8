package dev.mailroom.schema;

import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.postgres.SqlScripts;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Applies the inbox SQL API and then the mailroom schema, the same files an operator runs with psql
 * ({@code sql/inbox/install.sql}, then {@code sql/mailroom/install.sql}), shipped in the jar. The
 * inbox and channel names reach {@code mailroom.setup_inbox} through session settings, as {@code
 * PGOPTIONS='-c mailroom.queue_name=...'} does for psql.
 */
public final class SchemaInstaller {

  public static final String MAILROOM_INSTALL_SCRIPT =
      "dev/mailroom/schema/sql/mailroom/install.sql";

  private SchemaInstaller() {}

  public static void install(DataSource dataSource, String queue, String channel) {
    PostgresInboxManager.create(dataSource).install();
    try (Handle handle = Jdbi.create(dataSource).open()) {
      handle
          .createQuery(
              "SELECT set_config('mailroom.queue_name', :queue, false) || "
                  + "set_config('mailroom.channel_name', :channel, false)")
          .bind("queue", queue)
          .bind("channel", channel)
          .mapTo(String.class)
          .one();
      SqlScripts.install(handle, MAILROOM_INSTALL_SCRIPT);
    }
  }
}
