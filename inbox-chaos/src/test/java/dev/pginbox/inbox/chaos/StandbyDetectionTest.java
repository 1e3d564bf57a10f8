package dev.pginbox.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A worker whose connections land on a standby (here: a URL that names only the standby) knows it
 * is on a standby, not disconnected: it tells the application once, counts the refusals, connects
 * again at a short fixed interval, and carries on as soon as the server is a primary.
 */
class StandbyDetectionTest {

  private static final String BASE = "/tmp/inbox-standby-" + ProcessHandle.current().pid();

  @Test
  void a_worker_on_a_standby_says_so_once_and_resumes_when_it_is_promoted() throws Exception {
    PgBinaries binaries = FailoverTest.binaries();
    try (PgCluster primary =
            PgCluster.create(
                binaries, Path.of(BASE + "-primary"), FreePorts.from(55880, 55889), Map.of());
        PgCluster standby = startStandby(primary)) {
      PostgresInbox inbox = ChaosRun.install(primary.jdbcUrl("postgres"));
      List<NewMessage> messages = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        messages.add(NewMessage.of("m" + i, "t", "agg-" + i, "{\"v\": 1}"));
      }
      inbox.sendAll(messages);
      await()
          .atMost(Duration.ofMinutes(1))
          .until(
              () -> count(standby.jdbcUrl("postgres"), "SELECT count(*) FROM inbox.chaos") == 20);

      List<String> events = new CopyOnWriteArrayList<>();
      AtomicInteger committed = new AtomicInteger();
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      PGSimpleDataSource onlyTheStandby = new PGSimpleDataSource();
      onlyTheStandby.setURL(standby.jdbcUrl("postgres"));
      InboxWorker worker =
          PostgresInboxWorker.builder(
                  onlyTheStandby,
                  WorkerOptions.builder(ChaosRun.INBOX)
                      .concurrency(2)
                      .reconnectBackoff(Duration.ofMillis(50), Duration.ofSeconds(30))
                      .build())
              .handler((message, tx) -> Outcome.processed())
              .meterRegistry(registry)
              .listener(
                  new WorkerListener() {
                    @Override
                    public void onStandby(Throwable error, Duration retryIn) {
                      events.add("standby");
                    }

                    @Override
                    public void onConnectionLost(Throwable error, Duration retryIn) {
                      events.add("lost");
                    }

                    @Override
                    public void onProcessorConnectionLost(Throwable error, Duration retryIn) {
                      events.add("processor lost");
                    }

                    @Override
                    public void onConnected() {
                      events.add("connected");
                    }

                    @Override
                    public void onBatchCommitted(int count) {
                      committed.addAndGet(count);
                    }
                  })
              .build();
      worker.start();
      try {
        // Many refusals (LISTEN, claims of both processors), each followed by a new connection.
        await()
            .atMost(Duration.ofMinutes(1))
            .until(() -> registry.counter("inbox.standby.refusals", "inbox", "chaos").count() >= 8);
        assertThat(events).containsExactly("standby");

        standby.promote();
        await().atMost(Duration.ofMinutes(1)).until(() -> committed.get() == 20);
        assertThat(events).startsWith("standby", "connected").doesNotContain("lost");
      } finally {
        worker.stop();
      }
    }
  }

  private static PgCluster startStandby(PgCluster primary) {
    primary.start();
    PgCluster standby =
        PgCluster.standbyOf(
            primary, Path.of(BASE + "-standby"), FreePorts.from(primary.port() + 1, 55899));
    standby.start();
    return standby;
  }

  private static long count(String url, String sql) {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (Exception e) {
      return -1; // the standby is still starting
    }
  }
}
