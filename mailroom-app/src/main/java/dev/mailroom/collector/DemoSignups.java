package dev.mailroom.collector;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * {@code --demo}: signs up a sample account every few seconds (up to {@value #MAX_SIGN_UPS}) and
 * now and then asks a password recovery for an account the visitor activated, once per account.
 */
final class DemoSignups {

  /** Bounded, so the demo's mailbox (in memory) stays small however long it runs. */
  private static final int MAX_SIGN_UPS = 30;

  private static final long INTERVAL_MS = 4000;

  /** Accounts already asked a recovery: one recovery email per activated account is enough. */
  private final Set<String> recovered = new HashSet<>();

  private final DataSource dataSource;
  private final CollectorLog log;
  private volatile boolean running = true;
  private final Thread thread;

  DemoSignups(DataSource dataSource, CollectorLog log) {
    this.dataSource = dataSource;
    this.log = log;
    this.thread = new Thread(this::loop, "mailroom-demo");
    thread.setDaemon(true);
  }

  void start() {
    log.info("demo: signing up a sample account every " + INTERVAL_MS / 1000 + " seconds");
    thread.start();
  }

  void stop() {
    running = false;
    thread.interrupt();
  }

  private void loop() {
    int signedUp = 0;
    while (running) {
      try (Connection c = dataSource.getConnection();
          PreparedStatement insert =
              c.prepareStatement("INSERT INTO public.accounts (email, login) VALUES (?, ?)");
          PreparedStatement recover =
              c.prepareStatement(
                  "SELECT login, mailroom.request_password_recovery(login) FROM public.accounts"
                      + " WHERE status = 'active' AND login <> ALL (?) ORDER BY random() LIMIT 1")) {
        while (running) {
          if (signedUp < MAX_SIGN_UPS) {
            String id = UUID.randomUUID().toString().replace("-", "");
            insert.setString(1, "user" + id.substring(0, 8) + "@demo.test");
            insert.setString(2, "user" + id.substring(0, 8));
            insert.executeUpdate();
            signedUp++;
          }
          // Accounts the visitor activated by clicking now and then ask for a password recovery.
          if (ThreadLocalRandom.current().nextInt(4) == 0) {
            recover.setArray(1, c.createArrayOf("text", recovered.toArray()));
            try (ResultSet asked = recover.executeQuery()) {
              if (asked.next()) {
                recovered.add(asked.getString(1));
              }
            }
          }
          Thread.sleep(INTERVAL_MS);
        }
      } catch (InterruptedException e) {
        return;
      } catch (SQLException e) {
        log.warn("demo: " + e.getMessage());
        try {
          Thread.sleep(INTERVAL_MS);
        } catch (InterruptedException ie) {
          return;
        }
      }
    }
  }
}
