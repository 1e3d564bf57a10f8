package dev.mailroom.text;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonObjectTest {

  @Test
  void strings_are_escaped_so_a_value_cannot_break_the_document() {
    String json = new JsonObject().add("error", "a\"b\\c\nd\te\u0001").add("count", 3).toString();
    assertThat(json)
        .isEqualTo("{\n    \"error\": \"a\\\"b\\\\c\\nd\\te\\u0001\",\n    \"count\": 3\n}");
  }

  @Test
  void null_and_empty() {
    assertThat(new JsonObject().add("x", (String) null).toString())
        .isEqualTo("{\n    \"x\": null\n}");
    assertThat(new JsonObject().toString()).isEqualTo("{}");
  }
}
