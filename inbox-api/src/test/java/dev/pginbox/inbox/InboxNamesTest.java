package dev.pginbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class InboxNamesTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "orders",
        "a",
        "mailroom",
        "order_events_v2",
        "abcdefghijabcdefghijabcdefghijabcdefghij"
      })
  void accepts_lowercase_identifiers_up_to_40_characters(String name) {
    assertThat(InboxNames.requireValid(name)).isEqualTo(name);
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(
      strings = {
        "Orders",
        "1orders",
        "_x",
        "x; drop table y",
        "Robert'); --",
        "a-b",
        "ab c",
        "abcdefghijabcdefghijabcdefghijabcdefghijk",
        "orders\n",
        "ördër"
      })
  void rejects_anything_else_with_a_clear_error(String name) {
    assertThatThrownBy(() -> InboxNames.requireValid(name))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("invalid inbox name");
  }
}
