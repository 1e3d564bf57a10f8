package dev.mailroom.web;

import dev.mailroom.output.TokenSigner;
import dev.pginbox.inbox.http.server.FailedAttempts;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.HexFormat;

/**
 * Failed attempts limited twice: per client, so one client cannot try token after token, and per
 * token, so many clients (a botnet, or everyone behind one proxy) cannot share the tries on one
 * token. A request is refused while either is over its limit.
 *
 * <p>A client is its IPv4 address, or the /64 prefix of its IPv6 address: one IPv6 subscriber
 * usually holds a whole /64 and could otherwise take a new address per attempt. A token is the part
 * of the link that encodes its secret; text that is not token-shaped is counted per client only (it
 * is refused before the database is asked).
 */
final class AttemptLimits {

  /** The token characters that encode its 32-byte secret (252 of its 256 bits). */
  private static final int SECRET_CHARS = 42;

  private final FailedAttempts clients;
  private final FailedAttempts tokens;

  AttemptLimits(FailedAttempts clients, FailedAttempts tokens) {
    this.clients = clients;
    this.tokens = tokens;
  }

  boolean blocked(InetAddress client, String token) {
    String tokenKey = tokenKey(token);
    return clients.blocked(clientKey(client)) || (tokenKey != null && tokens.blocked(tokenKey));
  }

  void failed(InetAddress client, String token) {
    clients.failed(clientKey(client));
    String tokenKey = tokenKey(token);
    if (tokenKey != null) {
      tokens.failed(tokenKey);
    }
  }

  static String clientKey(InetAddress client) {
    if (client instanceof Inet6Address) {
      return HexFormat.of().formatHex(client.getAddress(), 0, 8) + "/64";
    }
    return client.getHostAddress();
  }

  private static String tokenKey(String token) {
    return token == null || token.length() != TokenSigner.TOKEN_LENGTH
        ? null
        : token.substring(0, SECRET_CHARS);
  }
}
