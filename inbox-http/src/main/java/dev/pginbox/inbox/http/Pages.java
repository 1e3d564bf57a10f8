package dev.pginbox.inbox.http;

import static dev.pginbox.inbox.http.Html.esc;
import static dev.pginbox.inbox.http.Html.link;
import static dev.pginbox.inbox.http.Html.time;
import static dev.pginbox.inbox.http.Paths.enc;

import dev.pginbox.inbox.BlockedAggregate;
import dev.pginbox.inbox.DeadLetter;
import dev.pginbox.inbox.DeadLetterSelection;
import dev.pginbox.inbox.DlqGroup;
import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.InboxHealth;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.MessageDetail;
import dev.pginbox.inbox.OperatorLogEntry;
import dev.pginbox.inbox.PartitionLag;
import dev.pginbox.inbox.WorkerInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The console's read-only pages; every list is one bounded page. */
final class Pages {

  static final int PAGE = 50;

  private final InboxManager manager;
  private final boolean writes;

  Pages(InboxManager manager, boolean writes) {
    this.manager = manager;
    this.writes = writes;
  }

  String index() {
    List<List<String>> rows = new ArrayList<>();
    for (String name : manager.names()) {
      Inbox inbox = manager.inbox(name);
      InboxHealth h = inbox.health();
      rows.add(
          List.of(
              link("/inbox/" + enc(name), name),
              Html.badge(h.status().name()),
              num(h.pendingCount()),
              num(h.processingCount()),
              num(h.dlqCount()),
              num(h.blockedAggregates()),
              h.worstPartitionLagSeconds() + " s",
              Html.chart(inbox.operations().throughput(60))));
    }
    return Html.page(
        "inboxes",
        "<h1>Inboxes</h1>"
            + Html.table(
                List.of(
                    "inbox",
                    "status",
                    "waiting",
                    "processing",
                    "dead",
                    "blocked",
                    "worst lag",
                    "processed, last hour"),
                rows,
                "No inboxes yet."));
  }

  String inbox(String name, String done) {
    Inbox inbox = manager.inbox(name);
    InboxHealth h = inbox.health();
    String base = "/inbox/" + enc(name);
    StringBuilder body =
        new StringBuilder("<h1>" + esc(name) + " " + Html.badge(h.status().name()) + "</h1>");
    if (done != null) {
      body.append("<p class=\"flash\">").append(esc(done)).append("</p>");
    }
    body.append("<p class=\"summary\">")
        .append(num(h.pendingCount()))
        .append(" waiting · ")
        .append(num(h.processingCount()))
        .append(" processing · ")
        .append(num(h.dlqCount()))
        .append(" dead · ")
        .append(num(h.blockedAggregates()))
        .append(" blocked aggregates · oldest waiting ")
        .append(h.oldestPendingAgeSeconds())
        .append(" s · ")
        .append(link(base + "/dlq", "dead letters"))
        .append(" · ")
        .append(link(base + "/audit", "audit log"))
        .append("</p>")
        .append(Html.chart(inbox.operations().throughput(60)));

    List<List<String>> blocked = new ArrayList<>();
    for (BlockedAggregate b : inbox.operations().blockedAggregates(PAGE)) {
      blocked.add(
          List.of(
              esc(b.aggregateId()),
              "<span class=\"reason\">"
                  + esc(b.reason().name().toLowerCase(java.util.Locale.ROOT))
                  + "</span>"
                  + (b.blockedUntil() != null ? " until " + esc(time(b.blockedUntil())) : "")
                  + (b.claimedByPid() != null
                      ? " by pid " + b.claimedByPid() + " " + esc(b.claimedBy())
                      : ""),
              link(base + "/message/" + enc(b.eventId()), b.eventId()),
              esc(b.eventType()),
              "<span class=\"error\">" + esc(shorten(b.error())) + "</span>",
              num(b.waitingBehind())));
    }
    body.append(
        Html.section(
            "Blocked aggregates",
            "blocked",
            Html.table(
                List.of("aggregate", "reason", "head", "type", "error", "waiting behind"),
                blocked,
                "No aggregate is blocked (or the inbox has no ordering).")));

    List<List<String>> lag = new ArrayList<>();
    for (PartitionLag p : inbox.operations().partitionLag()) {
      lag.add(
          List.of(
              p.partition() == null ? "all" : p.partition().toString(),
              num(p.waiting()) + (p.countsExact() ? "" : " (est.)"),
              num(p.backingOff()),
              p.oldestEligibleAgeSeconds() + " s",
              esc(p.owner()),
              esc(time(p.leaseExpiresAt()))));
    }
    body.append(
        Html.section(
            "Partition lag",
            "lag",
            Html.table(
                List.of(
                    "partition",
                    "waiting",
                    "backing off",
                    "oldest eligible",
                    "owner",
                    "lease until"),
                lag,
                "")));

    List<List<String>> workers = new ArrayList<>();
    for (WorkerInfo w : inbox.operations().workers()) {
      workers.add(
          List.of(
              esc(w.workerId()),
              Html.badge(w.state().name()),
              esc(w.host()),
              w.pid() == null ? "" : w.pid().toString(),
              esc(w.assignment()),
              esc(w.partitionsHeld().isEmpty() ? "" : w.partitionsHeld().toString()),
              esc(time(w.lastHeartbeat()))));
    }
    body.append(
        Html.section(
            "Workers",
            "workers",
            Html.table(
                List.of(
                    "worker", "state", "host", "pid", "assignment", "partitions", "last heartbeat"),
                workers,
                "No worker announced itself in the last hour.")));

    List<List<String>> groups = new ArrayList<>();
    for (DlqGroup g : inbox.operations().dlqGroups(PAGE)) {
      String list =
          base + "/dlq?" + typeQuery(g.eventType()) + "&error_group=" + enc(g.errorGroup());
      groups.add(
          List.of(
              esc(g.eventType()),
              "<span class=\"error\">" + esc(shorten(g.errorGroup())) + "</span>",
              link(list, num(g.count())),
              esc(time(g.firstSeen())),
              esc(time(g.lastSeen())),
              writes
                  ? actionForm(name, "replay", g.selection(), "replay group")
                      + actionForm(name, "discard", g.selection(), "discard group")
                  : ""));
    }
    body.append(
        Html.section(
            "Dead letters by error",
            "dlq-groups",
            Html.table(
                List.of("type", "error", "count", "first seen", "last seen", ""),
                groups,
                "No dead letters.")));
    if (writes) {
      body.append(
          Html.section(
              "Retention",
              "retention",
              actionForm(name, "purge", null, "run one retention step now")));
    }
    return Html.page(name, body.toString());
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
    MessageDetail m = manager.inbox(name).operations().message(eventId).orElse(null);
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
            + "</dl>"
            + "<h2>Error</h2><pre class=\"error\">"
            + esc(m.error())
            + "</pre>"
            + "<h2>Payload</h2><pre class=\"payload\">"
            + esc(Json.pretty(m.payload()))
            + "</pre>"
            + (writes && "dead".equals(m.state())
                ? actionForm(
                    name,
                    "replay",
                    DeadLetterSelection.ids(List.of(eventId)),
                    "replay this message")
                : ""));
  }

  String audit(String name, Long before) {
    List<OperatorLogEntry> entries =
        name == null
            ? manager.auditLog(PAGE, before)
            : manager.inbox(name).operations().auditLog(PAGE, before);
    List<List<String>> rows = new ArrayList<>();
    for (OperatorLogEntry e : entries) {
      rows.add(
          List.of(
              esc(time(e.loggedAt())),
              esc(e.actor()),
              esc(e.role()),
              esc(e.applicationName()),
              esc(e.action()),
              e.inbox() == null ? "" : link("/inbox/" + enc(e.inbox()), e.inbox()),
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

  /** A button that asks for confirmation of an action on a selection. */
  static String actionForm(String inbox, String action, DeadLetterSelection s, String label) {
    StringBuilder f =
        new StringBuilder("<form class=\"inline\" method=\"post\" action=\"/inbox/")
            .append(esc(enc(inbox)))
            .append("/confirm\">")
            .append(Html.hidden("action", action));
    if (s != null) {
      f.append(Selections.hiddenFields(s));
    }
    return f.append("<button>").append(esc(label)).append("</button></form>").toString();
  }

  private static String typeQuery(String eventType) {
    return eventType == null ? "" : "event_type=" + enc(eventType);
  }

  private static String dt(String term, String value) {
    return "<dt>" + esc(term) + "</dt><dd>" + esc(value) + "</dd>";
  }

  static String num(long n) {
    return String.format(java.util.Locale.ROOT, "%,d", n);
  }

  private static String shorten(String s) {
    return s == null || s.length() <= 200 ? s : s.substring(0, 200) + "…";
  }
}
