package dev.pginbox.inbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A context closed while a listener outlives the shutdown grace: the batch is rolled back with one
 * WARN of the worker's, and nothing else warns: not the failure log (the cancel is the stop's, not
 * the handler's failure) and not the pool (a handler stuck in the database returns on the cancel,
 * and its connection is rolled back intact instead of cut).
 */
class ShutdownPastGraceTest {

  static volatile CountDownLatch handling;

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import(SlowListener.class)
  static class SlowApplication {}

  static class SlowListener {
    private final JdbcTemplate jdbc;

    SlowListener(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @InboxListener(inbox = "slow")
    public void on(InboxMessage message) {
      handling.countDown();
      if (message.eventId().startsWith("sql")) {
        jdbc.queryForObject("SELECT pg_sleep(30)::text", String.class); // stuck in the database
      } else {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < end) {
          try {
            Thread.sleep(100); // stuck in Java, ignoring interruption
          } catch (InterruptedException ignoredToo) {
            // a handler that will not stop
          }
        }
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"sql", "java"})
  void a_batch_past_the_grace_is_rolled_back_with_one_warning_and_no_stack(String kind)
      throws Exception {
    handling = new CountDownLatch(1);
    TestDatabase db = TestPostgres.shared().newDatabase("spring_grace_" + kind);
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(SlowApplication.class)
            .properties(
                "spring.main.web-application-type=none",
                "spring.datasource.url=" + db.jdbcUrl(),
                "spring.datasource.username=" + (db.user() == null ? "" : db.user()),
                "spring.datasource.password=" + (db.password() == null ? "" : db.password()),
                "spring.autoconfigure.exclude="
                    + "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
                    + "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration",
                "inbox.inboxes.slow.worker.shutdown-grace=1s",
                "inbox.inboxes.slow.worker.poll-interval=100ms")
            .run();
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    logged.start();
    root.addAppender(logged);
    try {
      context.getBean(InboxTemplate.class).send("slow", NewMessage.of(kind + "-1", "t", "a", "{}"));
      assertThat(handling.await(30, TimeUnit.SECONDS)).isTrue();
      context.close();
    } finally {
      root.detachAppender(logged);
    }

    List<String> warnings =
        logged.list.stream()
            .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
            .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage())
            .toList();
    assertThat(warnings).as(String.join("\n", warnings)).anyMatch(w -> w.contains("rolled back"));
    assertThat(warnings)
        .as(String.join("\n", warnings))
        .noneMatch(w -> w.startsWith("com.zaxxer"))
        .noneMatch(w -> w.contains("the handler failed"))
        .allMatch(w -> w.startsWith("dev.pginbox"));
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM inbox.slow"
                    + " WHERE processed_at IS NULL AND retry_count = 0 AND error IS NULL")) {
      rs.next();
      assertThat(rs.getLong(1)).as("the message waits again, not charged").isEqualTo(1);
    }
  }
}
