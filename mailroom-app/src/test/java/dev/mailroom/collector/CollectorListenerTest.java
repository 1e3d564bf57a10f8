package dev.mailroom.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.WorkerListener.DispatchReason;
import dev.pginbox.inbox.WorkerListener.WakeUpCause;
import dev.pginbox.inbox.http.Readiness;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The original's log lines, from worker events. */
class CollectorListenerTest {

  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final CollectorLog log =
      new CollectorLog(
          new PrintStream(err, true, StandardCharsets.UTF_8),
          Clock.fixed(Instant.parse("2024-04-20T13:37:00Z"), ZoneOffset.UTC),
          false);
  private final Readiness readiness = new Readiness();
  private final CollectorListener listener =
      new CollectorListener(
          log,
          "host=/tmp port=5432 dbname=mailroom user=ogu sslmode=disable",
          readiness.track("collector"));

  @Test
  void prints_the_originals_lines_once_per_batch_cycle() {
    listener.onConnected();
    listener.onWakeUp(WakeUpCause.NOTIFY);
    listener.onWakeUp(WakeUpCause.NOTIFY);
    listener.onWakeUp(WakeUpCause.POLL);
    listener.onDispatch(3, DispatchReason.MAX_REACHED);
    listener.onWakeUp(WakeUpCause.NOTIFY);
    listener.onDispatch(2, DispatchReason.TIMEOUT);
    listener.onConnectionLost(
        new SQLException("server closed the connection unexpectedly\n\tThis probably means..."),
        Duration.ofMillis(200));
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            """
        2024/04/20 13:37:00 [PG] connected
        2024/04/20 13:37:00 [PG] NOTIFY called; waking up
        2024/04/20 13:37:00 [PG] processing 3 rows... (max reached)
        2024/04/20 13:37:00 [PG] NOTIFY called; waking up
        2024/04/20 13:37:00 [PG] processing 2 rows... (timeout)
        2024/04/20 13:37:00 [PG] WARN: connection lost: server closed the connection unexpectedly; reconnecting in 200ms
        2024/04/20 13:37:00 [PG] connecting to host=/tmp port=5432 dbname=mailroom user=ogu sslmode=disable
        """);
    assertThat(listener.isConnected()).isFalse();
  }

  /**
   * /health/ready (MAILROOM_HTTP_PORT) follows the worker's connection: not ready before it
   * connects and while it reconnects. (Its readiness tracked no worker before 2026-11-27, so it
   * answered ready whenever the database answered the health check's own query.)
   */
  @Test
  void the_readiness_follows_the_connection() {
    assertThat(readiness.disconnected()).containsExactly("collector");
    listener.onConnected();
    assertThat(readiness.disconnected()).isEmpty();
    listener.onConnectionLost(new SQLException("terminating connection"), Duration.ofMillis(200));
    assertThat(readiness.disconnected()).containsExactly("collector");
    listener.onConnected();
    assertThat(readiness.disconnected()).isEmpty();
  }
}
