package dev.pginbox.inbox.http;

import static dev.pginbox.inbox.http.Html.esc;
import static dev.pginbox.inbox.http.Paths.enc;

import com.sun.net.httpserver.HttpExchange;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import dev.pginbox.inbox.operations.InboxOperations;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The web console: read-only pages (see {@link Pages}) and, when enabled, write actions in two
 * steps: {@code POST /inbox/{name}/confirm} shows what the action will touch and how many messages;
 * {@code POST /inbox/{name}/run} runs it. Both need an authenticated user; {@code run} also needs
 * the user's CSRF token, which only the confirmation page carries. The action runs through the
 * audited SQL API with the user as actor.
 */
final class Console implements Route.Page {

  private static final String HTML = "text/html; charset=utf-8";

  /** The write actions, each confirmed before it runs. */
  private static final List<String> ACTIONS =
      List.of("replay", "discard", "purge", "pause", "resume", "retry_now");

  private final InboxManager manager;
  private final Auth auth;
  private final boolean writes;
  private final Pages pages;
  private final MessagePages messages;
  private final SearchPage search;
  private final LiveView live;
  private final LoginThrottle throttle;

  Console(InboxManager manager, Auth auth, LoginThrottle throttle, boolean writes) {
    this.manager = manager;
    this.auth = auth;
    this.throttle = throttle;
    this.writes = writes;
    this.pages = new Pages(manager, writes);
    this.messages = new MessagePages(manager, writes);
    this.search = new SearchPage(manager);
    this.live = new LiveView(manager);
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    List<String> path = Paths.segments(exchange, "/");
    String method = exchange.getRequestMethod();
    if ("POST".equals(method) && path.size() == 3 && path.get(0).equals("inbox")) {
      if (path.get(2).equals("confirm") || path.get(2).equals("run")) {
        write(exchange, path.get(1), path.get(2).equals("run"));
        return;
      }
    }
    if (!"GET".equals(method) && !"HEAD".equals(method)) {
      Exchanges.send(exchange, 405, "text/plain; charset=utf-8", "method not allowed\n");
      return;
    }
    Map<String, String> q = Exchanges.query(exchange);
    if (path.equals(List.of("live.json"))
        || path.size() == 3 && path.get(0).equals("inbox") && path.get(2).equals("live.json")) {
      Object values = live.json(path.size() == 3 ? path.get(1) : null);
      Exchanges.send(exchange, 200, Json.CONTENT_TYPE, Json.write(values));
      return;
    }
    if (path.size() == 3 && path.get(0).equals("inbox") && path.get(2).equals("search")) {
      SearchPage.Answer answer = search.search(path.get(1), q);
      Exchanges.send(exchange, answer.status(), HTML, answer.html());
      return;
    }
    String html = read(path, q);
    if (html == null) {
      Exchanges.send(exchange, 404, HTML, Html.page("not found", "<h1>Not found</h1>"));
    } else {
      Exchanges.send(exchange, 200, HTML, html);
    }
  }

  @Override
  public void refused(HttpExchange exchange, InboxException e) throws IOException {
    List<String> path = Paths.segments(exchange, "/");
    boolean write = "POST".equals(exchange.getRequestMethod());
    String inbox = path.size() >= 2 && path.get(0).equals("inbox") ? path.get(1) : null;
    String what;
    if (write) {
      what = "the action it was asked for in inbox " + inbox;
    } else if (inbox == null) {
      what =
          path.isEmpty() || path.get(0).equals("live.json")
              ? "the list of inboxes"
              : "the audit log";
    } else if (path.size() == 2) {
      what = "inbox " + inbox;
    } else {
      what =
          switch (path.get(2)) {
            case "dlq" -> "the dead letters of inbox " + inbox;
            case "audit" -> "the audit log of inbox " + inbox;
            case "search" -> "the messages of inbox " + inbox;
            case "live.json" -> "inbox " + inbox;
            default -> "message " + path.get(path.size() - 1) + " of inbox " + inbox;
          };
    }
    MissingGrant missing = MissingGrant.of(manager, what, inbox, write, e);
    Exchanges.send(exchange, MissingGrant.STATUS, HTML, missing.html());
  }

  private String read(List<String> path, Map<String, String> q) {
    if (path.isEmpty()) {
      return pages.index();
    }
    if (path.equals(List.of("audit"))) {
      return messages.audit(null, Api.before(q));
    }
    if (!path.get(0).equals("inbox") || path.size() < 2) {
      return null;
    }
    String name = path.get(1);
    if (path.size() == 2) {
      return pages.inbox(name, Flash.text(q));
    }
    return switch (path.get(2)) {
      case "dlq" -> path.size() == 3 ? messages.deadLetters(name, q) : null;
      case "audit" -> path.size() == 3 ? messages.audit(name, Api.before(q)) : null;
      case "message" -> path.size() == 4 ? messages.message(name, path.get(3)) : null;
      default -> null;
    };
  }

  private void write(HttpExchange exchange, String inbox, boolean run) throws IOException {
    if (!writes) {
      refuse(exchange, 403, "Read-only", "Write actions are not enabled on this console.");
      return;
    }
    // A form another site made the browser post is refused before anything is checked, the
    // confirmation too: it would count messages and send credentials on the attacker's behalf.
    if (!Auth.sameOrigin(exchange)) {
      refuse(exchange, 403, "Refused", "The form did not come from this console.");
      return;
    }
    Optional<String> user = authenticate(exchange);
    if (user.isEmpty()) {
      return;
    }
    Map<String, String> form = Exchanges.form(exchange);
    InboxOperations ops = manager.inbox(inbox).operations().asActor(user.get());
    String action = form.getOrDefault("action", "");
    if (!ACTIONS.contains(action)) {
      throw new Exchanges.BadRequest("action must be one of " + String.join(", ", ACTIONS));
    }
    DeadLetterSelection selection =
        List.of("purge", "pause", "resume").contains(action) ? null : Selections.fromForm(form);
    if (action.equals("retry_now") && !selection.byIds()) {
      throw new Exchanges.BadRequest("retry now takes the ids of the messages to retry");
    }
    if (!run) {
      Exchanges.send(exchange, 200, HTML, confirmation(inbox, action, selection, ops, user.get()));
      return;
    }
    if (!auth.csrfValid(exchange, user.get(), form)) {
      refuse(exchange, 403, "Refused", "The form did not come from this console (CSRF check).");
      return;
    }
    String done =
        switch (action) {
          case "replay" -> Flash.replayed(ops.replay(selection));
          case "discard" -> Flash.discarded(ops.discard(selection));
          case "pause" -> Flash.done("pause", ops.pause() ? 1 : 0);
          case "resume" -> Flash.done("resume", ops.resume() ? 1 : 0);
          case "retry_now" -> Flash.done("retry_now", ops.retryNow(selection.eventIds()));
          default -> Flash.purged(ops.purge(1000));
        };
    Exchanges.redirect(exchange, "/inbox/" + enc(inbox) + "?" + done);
  }

  /**
   * The user of a write request, or empty once the answer is sent: 401 without or with wrong
   * credentials, 429 while the client or the user is throttled after failed logins.
   */
  private Optional<String> authenticate(HttpExchange exchange) throws IOException {
    String client = exchange.getRemoteAddress().getAddress().getHostAddress();
    String claimed = auth.claimed(exchange);
    if (throttle.refused(client, claimed)) {
      exchange
          .getResponseHeaders()
          .set("Retry-After", Long.toString(LoginThrottle.WINDOW.toSeconds()));
      refuse(exchange, 429, "Too many attempts", "Too many failed logins; try again later.");
      return Optional.empty();
    }
    Optional<String> user = auth.user(exchange);
    if (user.isEmpty()) {
      if (Auth.presented(exchange)) {
        throttle.failed(client, claimed);
      }
      exchange
          .getResponseHeaders()
          .set("WWW-Authenticate", "Basic realm=\"" + Auth.REALM + "\", charset=\"UTF-8\"");
      refuse(exchange, 401, "Sign in", "Write actions need an operator's credentials.");
    }
    return user;
  }

  private static void refuse(HttpExchange exchange, int status, String title, String text)
      throws IOException {
    Exchanges.send(
        exchange,
        status,
        HTML,
        Html.page(title, "<h1>" + esc(title) + "</h1><p>" + esc(text) + "</p>"));
  }

  private String confirmation(
      String inbox,
      String action,
      DeadLetterSelection selection,
      InboxOperations ops,
      String user) {
    String what =
        switch (action) {
          case "purge" -> "one retention step (at most 1,000 rows past their retention)";
          case "pause" -> "the consumption of the inbox: no claim takes anything until resumed";
          case "resume" -> "the consumption of the inbox";
          case "retry_now" -> "message(s) " + String.join(", ", selection.eventIds());
          default ->
              Html.num(ops.countDeadLetters(selection))
                  + " message(s): "
                  + Selections.describe(selection);
        };
    return Html.page(
        "confirm " + action,
        "<h1>Confirm: "
            + esc(action)
            + " in "
            + esc(inbox)
            + "</h1>"
            + "<p class=\"confirm\">This will "
            + esc(action)
            + " <strong class=\"touched\">"
            + esc(what)
            + "</strong>, as "
            + esc(user)
            + ". It is recorded in the audit log.</p>"
            + "<form method=\"post\" action=\"/inbox/"
            + esc(enc(inbox))
            + "/run\">"
            + Html.hidden("action", action)
            + Html.hidden("csrf", auth.csrfToken(user))
            + (selection == null ? "" : Selections.hiddenFields(selection))
            + "<button class=\"danger\" id=\"confirm\">"
            + esc(action)
            + "</button> "
            + Html.link("/inbox/" + enc(inbox), "cancel")
            + "</form>");
  }
}
