package dev.pginbox.inbox.http;

import static dev.pginbox.inbox.http.Html.PAGE;
import static dev.pginbox.inbox.http.Html.esc;
import static dev.pginbox.inbox.http.Html.link;
import static dev.pginbox.inbox.http.Html.num;
import static dev.pginbox.inbox.http.Html.shorten;
import static dev.pginbox.inbox.http.Html.time;
import static dev.pginbox.inbox.http.Pages.actionForm;
import static dev.pginbox.inbox.http.Pages.typeQuery;
import static dev.pginbox.inbox.http.Paths.enc;

import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.operations.DeadLetter;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import dev.pginbox.inbox.operations.InboxOperations;
import dev.pginbox.inbox.operations.MessageDetail;
import dev.pginbox.inbox.operations.OperatorLogEntry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The console's message pages: dead letters (keyset pages), one message, the audit log. */
final class MessagePages {

  private final InboxManager manager;
  private final boolean writes;

  MessagePages(InboxManager manager, boolean writes) {
    this.manager = manager;
    this.writes = writes;
  }

  String deadLetters(String name, Map<String, String> q) {
    Inbox inbox = manager.inbox(name);
    DeadLetterSelection selection = Api.selection(q);
    List<DeadLetter> page =
        inbox
            .operations()
            .deadLetterPage(
                selection, PAGE, Api.time(q.get("after_received_at")), q.get("after_event_id"));
    String base = "/inbox/" + enc(name);
    List<List<String>> rows = new ArrayList<>();
    for (DeadLetter d : page) {
      rows.add(
          List.of(
              writes
                  ? "<input type=\"checkbox\" name=\"id\" value=\"" + esc(d.eventId()) + "\">"
                  : "",
              link(base + "/message/" + enc(d.eventId()), d.eventId()),
              esc(d.eventType()),
              esc(d.aggregateId()),
              esc(time(d.receivedAt())),
              "<span class=\"error\">" + esc(shorten(d.error())) + "</span>"));
    }
    StringBuilder body = new StringBuilder("<h1>" + link(base, name) + " · dead letters</h1>");
    if (selection != null) {
      body.append("<p class=\"summary\">type ")
          .append(esc(selection.eventType()))
          .append(selection.errorGroup() == null ? "" : " · error " + esc(selection.errorGroup()))
          .append("</p>");
    }
    String table =
        Html.table(
            List.of(writes ? "select" : "", "event id", "type", "aggregate", "received", "error"),
            rows,
            "No dead letters here.");
    if (writes && !rows.isEmpty()) {
      body.append("<form method=\"post\" action=\"")
          .append(esc(base + "/confirm"))
          .append("\">")
          .append(Html.hidden("by", "ids"))
          .append(
              "<p><label><input type=\"checkbox\" class=\"select-all\"> select all on this page</label> ")
          .append("<button name=\"action\" value=\"replay\">replay selected</button> ")
          .append("<button name=\"action\" value=\"discard\">discard selected</button></p>")
          .append(table)
          .append("</form>");
    } else {
      body.append(table);
    }
    if (page.size() == PAGE) {
      DeadLetter last = page.get(page.size() - 1);
      String next =
          base
              + "/dlq?"
              + (selection == null
                  ? ""
                  : typeQuery(selection.eventType())
                      + (selection.errorGroup() == null
                          ? ""
                          : "&error_group=" + enc(selection.errorGroup()))
                      + "&")
              + "after_received_at="
              + enc(String.valueOf(last.receivedAt()))
              + "&after_event_id="
              + enc(last.eventId());
      body.append("<p>").append(link(next, "next page →")).append("</p>");
    }
    return Html.page(name + " dead letters", body.toString());
  }

  String message(String name, String eventId) {
    InboxOperations ops = manager.inbox(name).operations();
    MessageDetail m = ops.message(eventId).orElse(null);
    if (m == null) {
      return null;
    }
    String base = "/inbox/" + enc(name);
    return Html.page(
        eventId,
        "<h1>"
            + link(base, name)
            + " · "
            + esc(eventId)
            + " "
            + Html.badge(m.state())
            + "</h1>"
            + "<dl>"
            + dt("type", m.eventType())
            + dt("source", m.source())
            + dt("aggregate", m.aggregateId())
            + dt("received", time(m.receivedAt()))
            + dt("processed", time(m.processedAt()))
            + dt("next attempt", time(m.nextAttemptAt()))
            + dt("attempts failed", String.valueOf(m.retryCount()))
            + dt("trace id", m.traceId())
            + FailureHistory.times(m, ops)
            + "</dl>"
            + "<h2>Error</h2><pre class=\"error\">"
            + esc(m.error())
            + "</pre>"
            + FailureHistory.attempts(m)
            + "<h2>Payload</h2><pre class=\"payload\">"
            + esc(Json.pretty(m.payload()))
            + "</pre>"
            + (writes && "dead".equals(m.state())
                ? actionForm(
                    name,
                    "replay",
                    DeadLetterSelection.ids(List.of(eventId)),
                    "replay this message")
                : "")
            + (writes
                    && "pending".equals(m.state())
                    && m.nextAttemptAt() != null
                    && m.nextAttemptAt().isAfter(java.time.Instant.now())
                ? actionForm(
                    name,
                    "retry_now",
                    DeadLetterSelection.ids(List.of(eventId)),
                    "retry this message now")
                : ""));
  }

  String audit(String name, Long before) {
    List<OperatorLogEntry> entries =
        name == null
            ? manager.auditLog(PAGE, before)
            : manager.inbox(name).operations().auditLog(PAGE, before);
    // The log keeps the rows of dropped inboxes: their names are no links to a page that is gone.
    Set<String> inboxes = new HashSet<>(name == null ? manager.names() : List.of(name));
    List<List<String>> rows = new ArrayList<>();
    for (OperatorLogEntry e : entries) {
      rows.add(
          List.of(
              esc(time(e.loggedAt())),
              esc(e.actor()),
              esc(e.role()),
              esc(e.applicationName()),
              esc(e.action()),
              inboxes.contains(e.inbox())
                  ? link("/inbox/" + enc(e.inbox()), e.inbox())
                  : esc(e.inbox()),
              "<code>" + esc(shorten(e.arguments())) + "</code>",
              e.rowsAffected() == null ? "" : num(e.rowsAffected())));
    }
    String self = name == null ? "/audit" : "/inbox/" + enc(name) + "/audit";
    String more =
        entries.size() == PAGE
            ? "<p>" + link(self + "?before=" + entries.get(PAGE - 1).id(), "older →") + "</p>"
            : "";
    return Html.page(
        "audit",
        "<h1>Audit log"
            + (name == null ? "" : " · " + link("/inbox/" + enc(name), name))
            + "</h1>"
            + Html.table(
                List.of(
                    "when", "actor", "role", "application", "action", "inbox", "arguments", "rows"),
                rows,
                "No operator action yet.")
            + more);
  }

  private static String dt(String term, String value) {
    return "<dt>" + esc(term) + "</dt><dd>" + esc(value) + "</dd>";
  }
}
