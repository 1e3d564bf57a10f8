package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.pginbox.inbox.InboxAlreadyExistsException;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.NewMessage;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An {@link InboxException} says, from the SQLSTATE the server sent, whether the call may simply be
 * made again: producers retry without parsing message text.
 */
class FailureClassificationTest extends InboxTestSupport {

  private static PostgresInbox inbox;

  @BeforeAll
  static void createInbox() {
    inbox = manager.createInbox("classified");
  }

  @Test
  void a_send_on_a_terminated_backend_is_transient_and_a_retry_on_a_new_connection_succeeds()
      throws Exception {
    NewMessage message = NewMessage.of("terminated-1", "t", "a", "{}");
    InboxException failure;
    try (Connection c = database.connect()) {
      long pid = pid(c);
      sql("SELECT pg_terminate_backend(?::int)", pid);
      failure = catchThrowableOfType(InboxException.class, () -> inbox.send(c, message));
    }
    assertThat(failure.isTransient()).as(failure.getMessage()).isTrue();
    assertThat(failure.sqlState()).hasValueSatisfying(s -> assertThat(s).matches("08...|57P01"));
    assertThat(failure.eventId()).contains("terminated-1");

    assertThat(inbox.send(message)).isTrue();
  }

  @Test
  void a_read_only_server_is_transient() throws Exception {
    InboxException failure;
    try (Connection c = database.connect();
        Statement s = c.createStatement()) {
      s.execute("SET default_transaction_read_only = on"); // what a standby answers
      failure =
          catchThrowableOfType(
              InboxException.class,
              () -> inbox.sendAll(c, List.of(NewMessage.of("ro-1", "t", "a", "{}"))));
    }
    assertThat(failure.sqlState()).contains("25006");
    assertThat(failure.isTransient()).isTrue();
  }

  @Test
  void a_lock_timeout_behind_an_uncommitted_duplicate_is_transient() throws Exception {
    try (Connection holder = database.connect();
        Connection waiter = database.connect();
        Statement s = waiter.createStatement()) {
      holder.setAutoCommit(false);
      inbox.send(holder, NewMessage.of("locked-1", "t", "a", "{}"));
      s.execute("SET lock_timeout = '100ms'");
      InboxException failure =
          catchThrowableOfType(
              InboxException.class,
              () -> inbox.send(waiter, NewMessage.of("locked-1", "t", "a", "{}")));
      assertThat(failure.sqlState()).contains("55P03");
      assertThat(failure.isTransient()).isTrue();
      holder.rollback();
    }
  }

  @Test
  void bad_input_and_name_conflicts_are_not_transient() {
    InvalidInboxArgumentException notJson =
        catchThrowableOfType(
            InvalidInboxArgumentException.class,
            () -> inbox.send(NewMessage.of("bad-json", "t", "a", "{not json")));
    assertThat(notJson.sqlState()).contains("22P02");
    assertThat(notJson.isTransient()).isFalse();

    InboxAlreadyExistsException exists =
        catchThrowableOfType(
            InboxAlreadyExistsException.class, () -> manager.createInbox("classified"));
    assertThat(exists.sqlState()).isPresent();
    assertThat(exists.isTransient()).isFalse();
  }

  @Test
  void an_error_raised_by_the_library_itself_has_no_sqlstate() {
    InboxException noList =
        catchThrowableOfType(
            InboxException.class,
            () ->
                new PostgresInbox(jdbi, "classified", false)
                    .send(NewMessage.of("x", "t", "a", "{}")));
    assertThat(noList.sqlState()).isEmpty();
    assertThat(noList.isTransient()).isFalse();
  }

  private static long pid(Connection c) throws Exception {
    try (Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
