package dev.mailroom.collector;

import dev.mailroom.config.EnvironmentConfig;
import dev.mailroom.config.MailroomConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/** The start-up check that the configured inbox exists and notifies on the configured channel. */
final class InboxCheck {

  private InboxCheck() {}

  /**
   * False when the inbox exists (or the database cannot be asked right now: the worker will keep
   * retrying). Warns when the inbox notifies on another channel than MAILROOM_CHANNEL_NAME: the
   * collector would then only find tokens by polling.
   */
  static boolean inboxMissing(DataSource dataSource, MailroomConfig config, CollectorLog log) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement("SELECT to_regclass('inbox.inbox_config') IS NOT NULL")) {
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        if (!rs.getBoolean(1)) {
          return true;
        }
      }
      try (PreparedStatement q =
          c.prepareStatement(
              "SELECT notify_channel FROM inbox.inbox_config WHERE inbox_name = ?")) {
        q.setString(1, config.queue());
        try (ResultSet rs = q.executeQuery()) {
          if (!rs.next()) {
            return true;
          }
          String channel = rs.getString(1);
          if (channel != null && !channel.equals(config.channel())) {
            log.warn(
                "inbox "
                    + config.queue()
                    + " notifies on channel "
                    + channel
                    + ", not on "
                    + EnvironmentConfig.CHANNEL_NAME
                    + "="
                    + config.channel()
                    + "; new tokens are found by polling only");
          }
          return false;
        }
      }
    } catch (SQLException e) {
      // The database may be down right now; the worker reconnects with backoff.
      log.warn("cannot check the schema now: " + e.getMessage());
      return false;
    }
  }
}
