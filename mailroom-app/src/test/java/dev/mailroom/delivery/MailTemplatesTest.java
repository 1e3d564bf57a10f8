package dev.mailroom.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.output.OutputRecord;
import dev.mailroom.output.TokenAction;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A login is shown in the emails as typed, minus what could rewrite them: line breaks, other
 * control characters, line separators, bidirectional overrides. The schema refuses such logins at
 * sign-up; these are rows from before that check.
 */
class MailTemplatesTest {

  private static final String FORGED =
      "eve\r\n\r\nYour account is locked: call +1 555 0100\u2028\u0085\u000b\u202Eevil\u2066";
  private static final List<String> FORBIDDEN =
      List.of("\r", "\n", "\u2028", "\u0085", "\u000b", "\u202E", "\u2066");
  private static final List<String> WITHIN_A_LINE =
      List.of("\r", "\u2028", "\u0085", "\u000b", "\u202E", "\u2066");

  private final MailTemplates templates = new MailTemplates("https://app.test", null);

  @Test
  void a_login_adds_no_line_and_reorders_nothing_in_any_part_of_either_email() {
    for (TokenAction action : TokenAction.values()) {
      Email plain = templates.render(record(action, "eve"));
      Email forged = templates.render(record(action, FORGED));
      assertThat(forged.text().lines().count()).isEqualTo(plain.text().lines().count());
      assertThat(forged.html().lines().count()).isEqualTo(plain.html().lines().count());
      assertThat(forged.subject()).doesNotContain(FORBIDDEN);
      // The templates' own lines end with \n; the counts above show the login added none.
      assertThat(forged.text()).doesNotContain(WITHIN_A_LINE);
      assertThat(forged.html()).doesNotContain(WITHIN_A_LINE);
      assertThat(forged.text()).contains("Hello eve    Your account is locked: call +1 555 0100");
    }
  }

  @Test
  void ses_template_data_carries_the_login_neutralised_too() {
    String login = templates.values(record(TokenAction.ACTIVATION, FORGED)).get("login");
    assertThat(login).doesNotContain(FORBIDDEN).startsWith("eve    Your account is locked");
  }

  private static OutputRecord record(TokenAction action, String login) {
    return new OutputRecord(action, "eve@x.test", login, "A".repeat(86), "12345");
  }
}
