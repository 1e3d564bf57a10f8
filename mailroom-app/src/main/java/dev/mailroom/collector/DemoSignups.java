package dev.mailroom.collector;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * {@code --demo}: signs up a few random accounts every couple of seconds (and now and then asks for
 * a password recovery), so a newcomer sees batches of lines flow on stdout.
 */
final class DemoSignups {

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
    log.info("demo: inserting sample sign-ups every 2 seconds");
    thread.start();
  }

  void stop() {
    running = false;
    thread.interrupt();
  }

  private void loop() {
    while (running) {
      try (Connection c = dataSource.getConnection();
          PreparedStatement insert =
              c.prepareStatement("INSERT INTO public.accounts (email, login) VALUES (?, ?)");
          PreparedStatement activate =
              c.prepareStatement(
                  "UPDATE public.tokens SET consumed_at = extract(epoch FROM now()) WHERE id = (SELECT min(id) FROM public.tokens"
                      + " WHERE action = 'activation' AND consumed_at IS NULL AND created_at < extract(epoch FROM now()) - 5)");
          PreparedStatement recover =
              c.prepareStatement(
                  "SELECT mailroom.request_password_recovery(login) FROM public.accounts WHERE status = 'active'"
                      + " ORDER BY random() LIMIT 1")) {
        while (running) {
          int n = ThreadLocalRandom.current().nextInt(1, 5);
          for (int i = 0; i < n; i++) {
            String id = UUID.randomUUID().toString().replace("-", "");
            insert.setString(1, "user" + id + "@fake.mail");
            insert.setString(2, "user" + id.substring(0, 20));
            insert.executeUpdate();
          }
          activate.executeUpdate();
          if (ThreadLocalRandom.current().nextInt(3) == 0) {
            recover.executeQuery().close();
          }
          Thread.sleep(2000);
        }
      } catch (InterruptedException e) {
        return;
      } catch (SQLException e) {
        log.warn("demo: " + e.getMessage());
        try {
          Thread.sleep(2000);
        } catch (InterruptedException ie) {
          return;
        }
      }
    }
  }
}
