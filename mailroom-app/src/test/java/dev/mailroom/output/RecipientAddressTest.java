package dev.mailroom.output;

import static dev.mailroom.testkit.AddressSamples.ACCEPTED;
import static dev.mailroom.testkit.AddressSamples.REFUSED;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RecipientAddressTest {

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
