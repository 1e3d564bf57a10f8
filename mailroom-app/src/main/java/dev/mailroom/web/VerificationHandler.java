package dev.mailroom.web;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.mailroom.text.JsonObject;
import dev.mailroom.verify.TokenVerifier;
import dev.mailroom.verify.Verification;
import dev.mailroom.verify.Verification.Result;
import dev.pginbox.inbox.http.HtmlText;
import java.io.IOException;
import java.net.InetAddress;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /activate} (token) and {@code POST /recover} (token and code) consume tokens; {@code
 * GET} of either link only shows the form that posts them, because mail scanners and link previews
 * follow links before the reader does. Answers with a small HTML page, or JSON when the client
 * accepts {@code application/json}. Failed attempts are limited per client and per token ({@link
 * AttemptLimits}); the client is the peer, or the one a trusted proxy names ({@link
 * TrustedProxies}).
 */
final class VerificationHandler implements HttpHandler {

  private static final Logger LOG = LoggerFactory.getLogger(VerificationHandler.class);

  private final TokenVerifier verifier;
  private final AttemptLimits limits;
  private final TrustedProxies proxies;
  private final String backLink;

  /**
   * @param backLink HTML to put under every answer (the demo links back to its mailbox), or ""
   */
  VerificationHandler(
      TokenVerifier verifier, AttemptLimits limits, TrustedProxies proxies, String backLink) {
    this.verifier = verifier;
    this.limits = limits;
    this.proxies = proxies;
    this.backLink = backLink;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      InetAddress client =
          proxies.client(
              exchange.getRemoteAddress().getAddress(),
              exchange.getRequestHeaders().getOrDefault(TrustedProxies.FORWARDED_FOR, List.of()));
      boolean activate = path.equals("/activate");
      if (!activate && !path.equals("/recover")) {
        answer(exchange, 404, "not_found", "Not found", null);
        return;
      }
      if (!method.equals("GET") && !method.equals("POST")) {
        exchange.getResponseHeaders().set("Allow", "GET, POST");
        answer(exchange, 405, "method_not_allowed", "Method not allowed", null);
        return;
      }
      Map<String, String> params;
      try {
        params = HttpExchanges.parameters(exchange);
      } catch (HttpExchanges.TooLarge e) {
        answer(exchange, 413, "too_large", "Request too large", null);
        return;
      }
      String token = params.get("token");
      if (limits.blocked(client, token)) {
        answer(exchange, 429, "too_many_attempts", "Too many failed attempts; try later", null);
        return;
      }
      if (method.equals("GET")) {
        // A link is followed by mail scanners and previews too: it only shows the button.
        confirmationForm(exchange, activate, token);
        return;
      }
      String code = params.get("code");
      if (token == null || (!activate && code == null)) {
        limits.failed(client, token);
        answer(exchange, 400, "malformed", "The link is incomplete", null);
        return;
      }
      Verification v = activate ? verifier.activate(token) : verifier.recover(token, code);
      if (v.result() == Result.BAD_SIGNATURE
          || v.result() == Result.UNKNOWN
          || v.result() == Result.TOO_MANY_WRONG_CODES) {
        limits.failed(client, token);
      }
      answer(exchange, status(v.result()), v.result().name().toLowerCase(Locale.ROOT), text(v), v);
    } catch (SQLException e) {
      LOG.warn("verification failed: {}", e.getMessage());
      answer(exchange, 503, "unavailable", "Cannot verify right now; try again", null);
    }
  }

  static int status(Result result) {
    return switch (result) {
      case ACTIVATED, RECOVERED -> 200;
      case BAD_SIGNATURE -> 400;
      case UNKNOWN -> 404;
      case ALREADY_CONSUMED -> 409;
      case EXPIRED -> 410;
      case ACCOUNT_SUSPENDED -> 403;
      case TOO_MANY_WRONG_CODES -> 410;
    };
  }

  private static String text(Verification v) {
    return switch (v.result()) {
      case ACTIVATED -> "Your account is active";
      case RECOVERED -> "Code accepted: you may now choose a new password";
      case BAD_SIGNATURE -> "This link or code is not valid";
      case UNKNOWN -> "This link is not known";
      case ALREADY_CONSUMED -> "This link was used already";
      case EXPIRED -> "This link has expired";
      case ACCOUNT_SUSPENDED -> "This account is suspended";
      case TOO_MANY_WRONG_CODES ->
          "Too many wrong codes: this link no longer works; ask for a new one";
    };
  }

  /** The page of a link: a form that POSTs the token (with the code, for a recovery). */
  private void confirmationForm(HttpExchange exchange, boolean activate, String token)
      throws IOException {
    if (HttpExchanges.wantsJson(exchange)) {
      exchange.getResponseHeaders().set("Allow", "POST");
      answer(
          exchange,
          405,
          "method_not_allowed",
          activate ? "POST token" : "POST token and code",
          null);
      return;
    }
    String body =
        token == null
            ? "<p>The link is incomplete.</p>"
            : activate
                ? VerificationPages.activationForm(token)
                : VerificationPages.recoveryForm(token);
    HttpExchanges.send(
        exchange,
        200,
        "text/html",
        VerificationPages.page(
            activate ? "Account activation" : "Password recovery", body + backLink));
  }

  private void answer(HttpExchange exchange, int status, String result, String text, Verification v)
      throws IOException {
    if (HttpExchanges.wantsJson(exchange)) {
      JsonObject json = new JsonObject().add("result", result).add("message", text);
      if (v != null && v.account() != null && v.result().succeeded()) {
        json.add("account", v.account());
      }
      HttpExchanges.send(exchange, status, "application/json", json.toString() + "\n");
    } else {
      HttpExchanges.send(
          exchange,
          status,
          "text/html",
          VerificationPages.page(text, "<p>" + HtmlText.escape(text) + ".</p>" + backLink));
    }
  }
}
