package dev.pginbox.inbox.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SqlErrorsTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "08000", "08003", "08006", "08001", "40001", "40P01", "55P03", "57014", "57P01", "57P02",
        "57P03", "25P03", "25006", "53300", "53200"
      })
  void states_that_say_nothing_about_the_call_are_transient(String state) {
    assertThat(SqlErrors.isTransient(state)).isTrue();
    assertThat(SqlErrors.translate(new SQLException("x", state), "send", "i", "e").isTransient())
        .isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"23505", "22P02", "42P01", "42501", "P0001", "XX000", "22023"})
  void states_about_the_call_itself_are_not(String state) {
    assertThat(SqlErrors.isTransient(state)).isFalse();
    var translated = SqlErrors.translate(new SQLException("x", state), "send", "i", "e");
    assertThat(translated.isTransient()).isFalse();
    assertThat(translated.sqlState()).contains(state);
  }

  @Test
  void a_pool_timeout_without_a_state_is_transient_by_its_type() {
    var translated =
        SqlErrors.translate(
            new RuntimeException(new SQLTransientConnectionException("pool exhausted")),
            "send",
            "i",
            null);
    assertThat(translated.sqlState()).isEmpty();
    assertThat(translated.isTransient()).isTrue();
  }
}
