package dev.mailroom.web;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * What every answer of the mailroom's server tells the browser: never frame these pages, load
 * nothing from anywhere, apply only the one stylesheet below (by its hash, so no injected style or
 * script runs), and send forms only back here.
 */
public final class PageSecurity extends Filter {

  /** The pages' only style, inline: the Content-Security-Policy names its hash. */
  public static final String STYLE =
      "body{font-family:sans-serif;max-width:46em;margin:2em auto;padding:0 1em}"
          + "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;"
          + "text-align:left}";

  public static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; style-src '"
          + sha256(STYLE)
          + "'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

  /** {@code <style>} with {@link #STYLE}, for the head of a page. */
  public static String styleElement() {
    return "<style>" + STYLE + "</style>";
  }

  @Override
  public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
    var headers = exchange.getResponseHeaders();
    headers.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    headers.set("X-Frame-Options", "DENY");
    headers.set("X-Content-Type-Options", "nosniff");
    chain.doFilter(exchange);
  }

  @Override
  public String description() {
    return "Content-Security-Policy and X-Frame-Options on every answer";
  }

  private static String sha256(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return "sha256-" + Base64.getEncoder().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
