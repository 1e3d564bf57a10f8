package dev.mailroom.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A malformed MAILROOM_DATABASE_URL is reported without any part of its password, however the
 * password broke the parse (bad percent-encoding, an unencoded / ? @ &, spaces in key/value form).
 */
class DatabaseUrlPasswordTest {

  /** Distinctive, so that any 3 characters of it in a message are a leak, not a coincidence. */
  private static final String SECRET = "Zq7Kx9Vw";

  private static final List<String> MALFORMED =
      List.of(
          "postgres://u:%zz" + SECRET + "@h/db",
          "postgres://u:" + SECRET + "%z@h/db",
          "postgres://u:" + SECRET + "%@h/db",
          "postgresql://u:Zq7K/x9Vw@h/db",
          "postgresql://u:Zq7K/[x9Vw@h/db",
          "postgresql://u:Zq7/x9Vw]@h/db",
          "postgres://u:Zq7K?x9Vw@h/db",
          "postgres://u:Zq7K?x9V=w@h/db",
          "postgres://u:Zq7K?ssl=x9Vw@h/db",
          "postgres://u:Zq7K?sslmode=x9Vw@h/db",
          "postgres://h/db?user=u&password=%zz" + SECRET,
          "postgres://h/db?password=Zq7K&x9Vw",
          "postgres://h/db?password=Zq7K&x9V=w",
          "postgres://u:" + SECRET + "@h:port/db",
          "postgres://u:" + SECRET + "@[::1/db",
          "postgres://u:" + SECRET + "@[::1]x/db",
          "mysql://u:" + SECRET + "@h/db",
          "mysql://u:Zq7K@x9Vw@h/db",
          "redis://u:Zq7K/x9Vw@h/db",
          "dbname=db password=Zq7K x9Vw",
          "dbname=db password=Zq7K x9V=w",
          "dbname=db password=Zq7K x9Vw=1 port=5432",
          "password='" + SECRET,
          "password=" + SECRET + " port=abc user",
          "jdbc:postgresql://h:notaport/db?password=" + SECRET,
          "jdbc:postgresql://u:" + SECRET + "@h:1/db");

  @Test
  void no_error_message_contains_any_part_of_the_password() {
    List<String> messages = new ArrayList<>();
    for (String url : MALFORMED) {
      Throwable error = catchThrowable(() -> DatabaseUrl.parse(url, Map.of()));
      assertThat(error).as(url).isInstanceOf(MalformedDatabaseUrlException.class);
      messages.add(error.getMessage());
      for (int i = 0; i + 3 <= SECRET.length(); i++) {
        assertThat(error.getMessage()).as(url).doesNotContain(SECRET.substring(i, i + 3));
      }
    }
    // Still useful: the messages say what to fix.
    assertThat(messages).anyMatch(m -> m.contains("percent-encod"));
    assertThat(messages).anyMatch(m -> m.contains("port"));
  }

  @Test
  void urls_without_a_password_still_name_the_culprit() {
    assertThat(catchThrowable(() -> DatabaseUrl.parse("bogus=1", Map.of())))
        .hasMessageContaining("\"bogus\"");
    assertThat(catchThrowable(() -> DatabaseUrl.parse("postgres://h/db?bogus=1", Map.of())))
        .hasMessageContaining("\"bogus\"");
    assertThat(catchThrowable(() -> DatabaseUrl.parse("port=abc", Map.of())))
        .hasMessageContaining("\"abc\"");
    assertThat(catchThrowable(() -> DatabaseUrl.parse("mysql://h/db", Map.of())))
        .hasMessageContaining("mysql://");
  }
}
