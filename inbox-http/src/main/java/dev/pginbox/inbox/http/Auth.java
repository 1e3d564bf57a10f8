package dev.pginbox.inbox.http;

import com.sun.net.httpserver.HttpExchange;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Authentication of write actions (HTTP basic or a bearer token, compared in constant time) and
 * their CSRF tokens: an HMAC of the user name under a key drawn at start-up, so a form is only
 * accepted from a page this server rendered for that user.
 */
final class Auth {

  static final String REALM = "inbox console";

  private final Credentials credentials;
  private final byte[] csrfKey = new byte[32];

  Auth(Credentials credentials) {
    this.credentials = credentials;
    new SecureRandom().nextBytes(csrfKey);
  }

  boolean enabled() {
    return credentials.any();
  }

  /** Whether the request carries credentials at all (an answer to a 401, or a script's token). */
  static boolean presented(HttpExchange exchange) {
    return exchange.getRequestHeaders().getFirst("Authorization") != null;
  }

  /**
   * The name the request claims, checked or not: the basic-auth user, the token's name, or null.
   */
  String claimed(HttpExchange exchange) {
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    if (header == null) {
      return null;
    }
    if (header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return credentials.tokenName();
    }
    String decoded = basic(header);
    int colon = decoded == null ? -1 : decoded.indexOf(':');
    return colon < 0 ? null : decoded.substring(0, colon);
  }

  /** The authenticated name, or empty. */
  Optional<String> user(HttpExchange exchange) {
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    if (header == null) {
      return Optional.empty();
    }
    if (header.regionMatches(true, 0, "Bearer ", 0, 7) && credentials.token() != null) {
      return equal(header.substring(7).strip(), credentials.token())
          ? Optional.of(credentials.tokenName())
          : Optional.empty();
    }
    String decoded = basic(header);
    if (decoded != null) {
      int colon = decoded.indexOf(':');
      if (colon < 0) {
        return Optional.empty();
      }
      String name = decoded.substring(0, colon);
      String expected = credentials.users().get(name);
      // Compare against something even for an unknown name, so timing does not tell names apart.
      boolean ok = equal(decoded.substring(colon + 1), expected == null ? "\0" : expected);
      return ok && expected != null ? Optional.of(name) : Optional.empty();
    }
    return Optional.empty();
  }

  /** The decoded {@code name:password} of a basic-auth header, or null. */
  private static String basic(String header) {
    if (!header.regionMatches(true, 0, "Basic ", 0, 6)) {
      return null;
    }
    try {
      return new String(
          Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  String csrfToken(String user) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(csrfKey, "HmacSHA256"));
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(mac.doFinal(user.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /** A write request is accepted only with the user's CSRF token (and from this origin). */
  boolean csrfValid(HttpExchange exchange, String user, Map<String, String> form) {
    String token = form.get("csrf");
    return token != null && equal(token, csrfToken(user)) && sameOrigin(exchange);
  }

  /**
   * Whether a form came from this console, as far as the browser says: {@code Sec-Fetch-Site} (sent
   * by current browsers) must be same-origin, and {@code Origin} this very origin. A client that
   * sends neither (a script, an old browser) is not a browser tricked by another site.
   */
  static boolean sameOrigin(HttpExchange exchange) {
    String site = exchange.getRequestHeaders().getFirst("Sec-Fetch-Site");
    if (site != null && !site.equals("same-origin") && !site.equals("none")) {
      return false;
    }
    String origin = exchange.getRequestHeaders().getFirst("Origin");
    String host = exchange.getRequestHeaders().getFirst("Host");
    return origin == null
        || host != null && (origin.equals("http://" + host) || origin.equals("https://" + host));
  }

  private static boolean equal(String given, String expected) {
    return MessageDigest.isEqual(
        given.getBytes(StandardCharsets.UTF_8), expected.getBytes(StandardCharsets.UTF_8));
  }
}
