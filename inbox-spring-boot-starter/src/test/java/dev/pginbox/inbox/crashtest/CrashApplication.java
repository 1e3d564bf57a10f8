package dev.pginbox.inbox.crashtest;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.spring.InboxListener;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Run in a JVM of its own by {@code ProcessCrashTest}, which kills it with SIGKILL: its listener
 * writes an effect per message and, on the third message of a batch, says so through a marker file
 * and hangs, so the kill lands in the middle of a batch.
 */
@SpringBootApplication
public class CrashApplication {

  public static void main(String[] args) {
    SpringApplication.run(CrashApplication.class, args);
  }

  @Component
  static class HangingListener {
    private final JdbcTemplate jdbc;
    private int handled;

    HangingListener(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @InboxListener(inbox = "crash")
    public void on(InboxMessage message) throws IOException, InterruptedException {
      jdbc.update("INSERT INTO crash_effects (event_id) VALUES (?)", message.eventId());
      if (++handled == 3) {
        Files.writeString(Path.of(System.getProperty("crash.marker")), message.eventId());
        new CountDownLatch(1).await(); // until killed
      }
    }
  }
}
