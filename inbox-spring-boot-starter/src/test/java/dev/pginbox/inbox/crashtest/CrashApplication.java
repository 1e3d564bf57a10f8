package dev.pginbox.inbox.crashtest;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.spring.InboxListener;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Run in a JVM of its own by {@code ProcessCrashTest}: a non-web application whose only work is an
 * inbox listener. It says it is ready through a marker file ({@code crash.ready}); its listener
 * writes an effect per message and, on the third message of a batch, says so through another marker
 * file ({@code crash.marker}) and hangs, so a kill lands in the middle of a batch.
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

    @EventListener(ApplicationReadyEvent.class)
    public void ready() throws IOException {
      Files.writeString(Path.of(System.getProperty("crash.ready")), "ready");
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
