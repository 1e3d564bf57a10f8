package dev.mailroom.output;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RecipientAddressTest {

  /** Shared with the schema's test: the CHECK constraint must agree with this class. */
  public static final List<String> ACCEPTED =
      List.of(
          "a@x.test",
          "user@example.com",
          "first.last+tag@mail.example.co.uk",
          "o'brien@x.test",
          "!#$%&'*+/=?^_`{|}~-@x.test",
          "u@localhost",
          "u@x-y.test",
          "a".repeat(64) + "@x.test",
          "a@"
              + "b".repeat(63)
              + "."
              + "c".repeat(63)
              + "."
              + "d".repeat(63)
              + "."
              + "e".repeat(60));

  public static final List<String> REFUSED =
      List.of(
          "",
          "\"w2@x.test\" <attacker@evil.test>",
          "w2 <attacker@evil.test>",
          "<attacker@evil.test>",
          "grp: a@evil.test, b@evil.test;",
          "a@evil.test, b@evil.test",
          "a@x.test (comment)",
          "a(comment)@x.test",
          "\"quoted local\"@x.test",
          "a@[127.0.0.1]",
          "a@x.test\r\nBcc: spy@evil.test",
          "a@x.test\n",
          "a b@x.test",
          " a@x.test",
          "a@x.test\t",
          "a..b@x.test",
          ".a@x.test",
          "a.@x.test",
          "a@x..test",
          "a@-x.test",
          "a@x-.test",
          "a@x.test.",
          "a",
          "@x.test",
          "a@",
          "a@b@x.test",
          "ü@x.test",
          "a@bücher.test",
          "a".repeat(65) + "@x.test",
          "a@" + "b".repeat(64) + ".test",
          "a@"
              + "b".repeat(63)
              + "."
              + "c".repeat(63)
              + "."
              + "d".repeat(63)
              + "."
              + "e".repeat(61));

  @Test
  void only_a_single_bare_address_is_a_recipient() {
    assertThat(ACCEPTED).allSatisfy(a -> assertThat(RecipientAddress.problem(a)).as(a).isEmpty());
    assertThat(REFUSED)
        .allSatisfy(
            a ->
                assertThat(RecipientAddress.problem(a))
                    .as(a)
                    .hasValueSatisfying(p -> assertThat(p).startsWith("invalid address: ")));
    assertThat(RecipientAddress.problem(null)).isPresent();
  }

  @Test
  void the_reason_never_quotes_the_address() {
    for (String address : REFUSED) {
      if (address.length() > 8) {
        assertThat(RecipientAddress.problem(address).orElseThrow()).doesNotContain(address);
      }
    }
  }
}
