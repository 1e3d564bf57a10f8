package dev.mailroom.web;

import dev.mailroom.config.ConfigException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * MAILROOM_TRUSTED_PROXIES: the reverse proxies whose {@code X-Forwarded-For} names the client
 * (comma-separated IPv4 and IPv6 addresses or CIDR networks; unset or empty trusts nobody). Behind
 * a proxy every request comes from the proxy's address, so limits per address would lump all
 * clients together; trusting the header from anyone else would let every client name itself.
 *
 * <p>The client is the right-most address of the chain that no trusted proxy vouches for: each
 * proxy appends the address it saw, so what stands left of the last untrusted hop was written by
 * the client and is ignored. Only IP literals are read, never host names (no DNS lookup).
 */
public final class TrustedProxies {

  public static final String VARIABLE = "MAILROOM_TRUSTED_PROXIES";
  public static final String FORWARDED_FOR = "X-Forwarded-For";

  /** Hops read from the right of a chain; a longer one is cut (a client may send any header). */
  static final int MAX_HOPS = 32;

  private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(?:\\.[0-9]{1,3}){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");
  private static final Pattern IPV4_PORT = Pattern.compile("([0-9.]+):[0-9]{1,5}");
  private static final Pattern BRACKETED = Pattern.compile("\\[([0-9A-Fa-f:.]+)](?::[0-9]{1,5})?");

  private record Network(byte[] address, int prefixBits) {

    boolean contains(InetAddress candidate) {
      byte[] other = candidate.getAddress();
      if (other.length != address.length) {
        return false;
      }
      int full = prefixBits / 8;
      if (!Arrays.equals(address, 0, full, other, 0, full)) {
        return false;
      }
      int rest = prefixBits % 8;
      int mask = (0xFF << (8 - rest)) & 0xFF;
      return rest == 0 || (address[full] & mask) == (other[full] & mask);
    }
  }

  private final List<Network> networks;

  private TrustedProxies(List<Network> networks) {
    this.networks = List.copyOf(networks);
  }

  public static TrustedProxies none() {
    return new TrustedProxies(List.of());
  }

  public static TrustedProxies read(Map<String, String> env) {
    String value = env.get(VARIABLE);
    return value == null || value.isBlank() ? none() : parse(value);
  }

  /** Comma-separated addresses and networks; a {@link ConfigException} names a bad entry. */
  public static TrustedProxies parse(String value) {
    List<Network> networks = new ArrayList<>();
    for (String entry : value.split(",", -1)) {
      networks.add(network(entry.strip()));
    }
    return new TrustedProxies(networks);
  }

  private static Network network(String entry) {
    int slash = entry.indexOf('/');
    String host = slash < 0 ? entry : entry.substring(0, slash);
    InetAddress address = literal(host);
    if (address == null) {
      throw bad(entry, "not an IPv4 or IPv6 address");
    }
    int maxBits = address.getAddress().length * 8;
    int bits = maxBits;
    if (slash >= 0) {
      String prefix = entry.substring(slash + 1);
      try {
        bits = Integer.parseInt(prefix);
      } catch (NumberFormatException e) {
        bits = -1;
      }
      if (bits < 0 || bits > maxBits || !prefix.matches("[0-9]{1,3}")) {
        throw bad(entry, "the prefix length must be 0 to " + maxBits);
      }
    }
    return new Network(address.getAddress(), bits);
  }

  private static ConfigException bad(String entry, String why) {
    return new ConfigException(
        VARIABLE
            + " must be comma-separated IP addresses or CIDR networks (10.0.0.0/8, fd00::/8);"
            + " '"
            + entry
            + "' is "
            + why);
  }

  public boolean trusts(InetAddress address) {
    for (Network n : networks) {
      if (n.contains(address)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The client of a request that came from {@code peer} with these {@code X-Forwarded-For} header
   * lines (in their order): the peer itself unless it is a trusted proxy; else, walking the chain
   * from the right, the first address that is not a trusted proxy. When every hop is trusted, the
   * left-most; when a hop is not an address, the last address a trusted proxy gave.
   */
  public InetAddress client(InetAddress peer, List<String> forwardedFor) {
    if (!trusts(peer)) {
      return peer;
    }
    List<String> hops = new ArrayList<>();
    for (String line : forwardedFor) {
      hops.addAll(Arrays.asList(line.split(",", -1)));
    }
    InetAddress current = peer;
    for (int i = hops.size() - 1; i >= Math.max(0, hops.size() - MAX_HOPS); i--) {
      InetAddress hop = hop(hops.get(i).strip());
      if (hop == null) {
        return current;
      }
      if (!trusts(hop)) {
        return hop;
      }
      current = hop;
    }
    return current;
  }

  /** One hop of a chain: an address, with a port or in brackets as some proxies write it. */
  private static InetAddress hop(String text) {
    var bracketed = BRACKETED.matcher(text);
    if (bracketed.matches()) {
      return literal(bracketed.group(1));
    }
    var withPort = IPV4_PORT.matcher(text);
    return literal(withPort.matches() ? withPort.group(1) : text);
  }

  /** An IP literal, or null; never a name lookup. IPv4-mapped IPv6 addresses come out as IPv4. */
  static InetAddress literal(String text) {
    if (text.startsWith("[") && text.endsWith("]")) {
      text = text.substring(1, text.length() - 1);
    }
    try {
      if (IPV4.matcher(text).matches()) {
        String[] parts = text.split("\\.");
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
          int octet = Integer.parseInt(parts[i]);
          if (octet > 255) {
            return null;
          }
          bytes[i] = (byte) octet;
        }
        return InetAddress.getByAddress(bytes);
      }
      // A literal with a colon is parsed as IPv6 and never looked up.
      return IPV6.matcher(text).matches() ? InetAddress.getByName(text) : null;
    } catch (UnknownHostException e) {
      return null;
    }
  }
}
