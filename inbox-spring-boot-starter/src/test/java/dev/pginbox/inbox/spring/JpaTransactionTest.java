package dev.pginbox.inbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.jpatest.JpaTestApplication;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;

/** The second (and last) Spring context of the starter's tests: an application on JPA. */
@SpringBootTest(
    classes = JpaTestApplication.class,
    properties = {
      "spring.jpa.hibernate.ddl-auto=update",
      "spring.sql.init.mode=always",
      "spring.sql.init.schema-locations=classpath:jpa-schema.sql",
      "inbox.inboxes.reservations.max-retries=1",
      "inbox.inboxes.reservations.worker.batch-size=10",
      "inbox.inboxes.booked.create=true"
    })
class JpaTransactionTest {

  private static final TestDatabase DATABASE = TestPostgres.shared().newDatabase("spring_jpa");

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", DATABASE::jdbcUrl);
    registry.add("spring.datasource.username", DATABASE::user);
    registry.add(
        "spring.datasource.password", () -> DATABASE.password() == null ? "" : DATABASE.password());
  }

  @Autowired PlatformTransactionManager transactions;
  @Autowired InboxTemplate inboxes;
  @Autowired PostgresInboxManager manager;
  @Autowired JdbcTemplate jdbc;
  @Autowired JpaTestApplication.Booking booking;

  private List<String> reservations() {
    return jdbc.queryForList(
        "SELECT id FROM reservation WHERE id LIKE 'r-%' ORDER BY id", String.class);
  }

  @Test
  void jpa_writes_of_a_failing_message_are_undone_and_the_others_of_its_batch_commit() {
    assertThat(transactions).isInstanceOf(JpaTransactionManager.class);

    inboxes.sendAll(
        "reservations",
        List.of(
            NewMessage.of("r-ok-1", "ok", "A", null),
            NewMessage.of("r-fail", "fail", "B", null),
            NewMessage.of("r-fail-flushed", "fail-flushed", "C", null),
            NewMessage.of("r-ok-2", "ok", "D", null)));

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> manager.inbox("reservations").deadLetters(10).size() == 2);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> manager.inbox("reservations").pending(10).isEmpty());
    assertThat(manager.inbox("reservations").deadLetters(10))
        .extracting(InboxMessage::eventId, m -> m.error().lines().findFirst().orElseThrow())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(
                "r-fail", "java.lang.IllegalStateException: failed after writing r-fail"),
            org.assertj.core.groups.Tuple.tuple(
                "r-fail-flushed",
                "java.lang.IllegalStateException: failed after flushing r-fail-flushed"));
    assertThat(reservations()).containsExactly("r-ok-1", "r-ok-2");
    assertThat(jdbc.queryForList("SELECT event_id FROM jdbc_log ORDER BY 1", String.class))
        .containsExactly("r-ok-1", "r-ok-2");
  }

  @Test
  void sending_inside_a_jpa_transaction_commits_and_rolls_back_with_it() {
    booking.book("b-ok", false);
    assertThatThrownBy(() -> booking.book("b-fail", true)).hasMessageContaining("b-fail failed");

    assertThat(manager.inbox("booked").pending(10))
        .extracting(InboxMessage::eventId)
        .containsExactly("b-ok");
    assertThat(jdbc.queryForList("SELECT id FROM reservation WHERE id LIKE 'b-%'", String.class))
        .containsExactly("b-ok");
  }
}
