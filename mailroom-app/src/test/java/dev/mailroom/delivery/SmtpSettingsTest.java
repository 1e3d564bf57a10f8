package dev.mailroom.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.config.ConfigException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SmtpSettingsTest {

  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>(Map.of("MAILROOM_SMTP_HOST", "mail.x.test"));
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  @Test
  void a_batch_uses_four_connections_unless_told_otherwise() {
    assertThat(SmtpSettings.read(env()).connections()).isEqualTo(4);
    assertThat(SmtpSettings.read(env("MAILROOM_SMTP_CONNECTIONS", "1")).connections()).isEqualTo(1);
    assertThat(SmtpSettings.read(env("MAILROOM_SMTP_CONNECTIONS", " 16 ")).connections())
        .isEqualTo(16);
  }

  @Test
  void a_connection_count_out_of_range_or_not_a_number_is_refused_with_its_value() {
    for (String bad : new String[] {"0", "17", "-1", "many", "4.5"}) {
      assertThatThrownBy(() -> SmtpSettings.read(env("MAILROOM_SMTP_CONNECTIONS", bad)))
          .isInstanceOf(ConfigException.class)
          .hasMessage("MAILROOM_SMTP_CONNECTIONS must be a number from 1 to 16, got: " + bad);
    }
  }
}
