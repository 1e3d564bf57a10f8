package dev.mailroom.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.config.ConfigException;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TrustedProxiesTest {

  private static InetAddress ip(String literal) throws Exception {
    return InetAddress.getByName(literal);
  }

  @Test
  void addresses_and_networks_of_both_families_are_trusted() throws Exception {
    TrustedProxies proxies =
        TrustedProxies.parse(" 10.0.0.0/8, 192.0.2.7 ,2001:db8::/32, ::1, [2001:db8:ffff::9]");
    assertThat(proxies.trusts(ip("10.255.0.1"))).isTrue();
    assertThat(proxies.trusts(ip("11.0.0.1"))).isFalse();
    assertThat(proxies.trusts(ip("192.0.2.7"))).isTrue();
    assertThat(proxies.trusts(ip("192.0.2.8"))).isFalse();
    assertThat(proxies.trusts(ip("2001:db8:1234::1"))).isTrue();
    assertThat(proxies.trusts(ip("2001:db9::1"))).isFalse();
    assertThat(proxies.trusts(ip("::1"))).isTrue();
    assertThat(proxies.trusts(ip("127.0.0.1"))).isFalse();
    assertThat(proxies.trusts(ip("::ffff:10.1.2.3"))).as("IPv4-mapped").isTrue();
    assertThat(TrustedProxies.parse("0.0.0.0/0").trusts(ip("203.0.113.9"))).isTrue();
    assertThat(TrustedProxies.parse("0.0.0.0/0").trusts(ip("2001:db8::1"))).isFalse();
  }

  @Test
  void nobody_is_trusted_by_default() throws Exception {
    TrustedProxies none = TrustedProxies.read(Map.of());
    assertThat(none.trusts(ip("127.0.0.1"))).isFalse();
    assertThat(TrustedProxies.read(Map.of("MAILROOM_TRUSTED_PROXIES", " ")).trusts(ip("::1")))
        .isFalse();
    assertThat(none.client(ip("127.0.0.1"), List.of("203.0.113.5"))).isEqualTo(ip("127.0.0.1"));
  }

  @Test
  void the_client_is_the_right_most_address_no_trusted_proxy_vouches_for() throws Exception {
    TrustedProxies proxies = TrustedProxies.parse("127.0.0.1,10.0.0.0/8");
    // The proxy appended what it saw; whatever the client wrote itself is to the left.
    assertThat(proxies.client(ip("127.0.0.1"), List.of("6.6.6.6, 203.0.113.5")))
        .isEqualTo(ip("203.0.113.5"));
    assertThat(proxies.client(ip("127.0.0.1"), List.of("6.6.6.6, 203.0.113.5, 10.1.1.1")))
        .as("a chain of trusted proxies")
        .isEqualTo(ip("203.0.113.5"));
    assertThat(proxies.client(ip("127.0.0.1"), List.of("6.6.6.6", "203.0.113.5")))
        .as("several header lines are one list")
        .isEqualTo(ip("203.0.113.5"));
    assertThat(proxies.client(ip("198.51.100.1"), List.of("203.0.113.5")))
        .as("an untrusted peer's header is ignored")
        .isEqualTo(ip("198.51.100.1"));
    assertThat(proxies.client(ip("127.0.0.1"), List.of()))
        .as("no header: the proxy itself")
        .isEqualTo(ip("127.0.0.1"));
    assertThat(proxies.client(ip("127.0.0.1"), List.of("10.0.0.2, 10.0.0.3")))
        .as("every hop trusted: the left-most")
        .isEqualTo(ip("10.0.0.2"));
    assertThat(proxies.client(ip("127.0.0.1"), List.of("[2001:db8::5]:443")))
        .isEqualTo(ip("2001:db8::5"));
    assertThat(proxies.client(ip("127.0.0.1"), List.of("203.0.113.5:5678")))
        .isEqualTo(ip("203.0.113.5"));
    assertThat(proxies.client(ip("127.0.0.1"), List.of("203.0.113.5, not-an-address, 10.0.0.9")))
        .as("a hop that is no address: the last one a trusted proxy named")
        .isEqualTo(ip("10.0.0.9"));
  }

  @Test
  void a_bad_entry_is_an_error_naming_the_variable() {
    for (String bad :
        List.of("example.com", "10.0.0.0/33", "::/129", "10.0.0", "256.1.1.1", "1.2.3.4/x", ",")) {
      assertThatThrownBy(() -> TrustedProxies.parse(bad))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("MAILROOM_TRUSTED_PROXIES");
    }
  }
}
