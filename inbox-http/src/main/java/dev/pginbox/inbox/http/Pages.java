package dev.pginbox.inbox.http;

import static dev.pginbox.inbox.http.Html.PAGE;
import static dev.pginbox.inbox.http.Html.atLeast;
import static dev.pginbox.inbox.http.Html.esc;
import static dev.pginbox.inbox.http.Html.estimate;
import static dev.pginbox.inbox.http.Html.link;
import static dev.pginbox.inbox.http.Html.num;
import static dev.pginbox.inbox.http.Html.shorten;
import static dev.pginbox.inbox.http.Html.time;
import static dev.pginbox.inbox.http.Paths.enc;

import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.operations.BlockedAggregate;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import dev.pginbox.inbox.operations.DlqGroup;
import dev.pginbox.inbox.operations.InboxHealth;
import dev.pginbox.inbox.operations.PartitionLag;
import dev.pginbox.inbox.operations.WorkerInfo;
import java.util.ArrayList;
import java.util.List;

/** The console's overview pages (all inboxes, one inbox); every list is one bounded page. */
final class Pages {

  private final InboxManager manager;
  private final boolean writes;

  Pages(InboxManager manager, boolean writes) {
    this.manager = manager;
    this.writes = writes;
  }

  String index() {
    List<List<String>> rows = new ArrayList<>();
    InboxHealth any = null;
    for (String name : manager.names()) {
      Inbox inbox = manager.inbox(name);
      InboxHealth h = inbox.health();
      any = h;
      rows.add(
          List.of(
              link("/inbox/" + enc(name), name),
              LiveView.field(name, "status", Html.badge(h.status().name())),
              LiveView.field(name, "waiting", estimate(h.pendingCount(), h.pendingCountExact())),
              LiveView.field(name, "processing", num(h.processingCount())),
              LiveView.field(name, "dead", estimate(h.dlqCount(), h.dlqCountExact())),
              LiveView.field(
                  name, "blocked", atLeast(h.blockedAggregates(), h.blockedAggregatesExact())),
              LiveView.field(name, "lag", h.worstPartitionLagSeconds() + " s"),
              Html.chart(name, inbox.operations().throughput(LiveView.MINUTES))));
    }
    return Html.page(
        "inboxes",
        "<h1>Inboxes</h1>"
            + LiveView.marker("/live.json")
            + HealthLines.horizon(any)
            + Html.table(
                List.of(
                    "inbox",
                    "status",
                    "waiting",
                    "processing",
                    "dead",
                    "blocked",
                    "worst lag",
                    "processed / failed, last hour"),
                rows,
                "No inboxes yet."));
  }

  String inbox(String name, String done) {
    Inbox inbox = manager.inbox(name);
    InboxHealth h = inbox.health();
    String base = "/inbox/" + enc(name);
    StringBuilder body =
        new StringBuilder(
            "<h1>"
                + esc(name)
                + " "
                + LiveView.field(name, "status", Html.badge(h.status().name()))
                + (h.statusReasons().isEmpty()
                    ? ""
                    : " <span class=\"reasons\">"
                        + esc(String.join(", ", h.statusReasons()))
                        + "</span>")
                + "</h1>");
    if (done != null) {
      body.append("<p class=\"flash\">").append(esc(done)).append("</p>");
    }
    java.time.Instant paused = inbox.operations().pausedSince();
    if (paused != null) {
      body.append("<p class=\"banner paused\">Consumption paused since ")
          .append(esc(Html.time(paused)))
          .append(": no worker claims anything until it is resumed.</p>");
    }
    body.append(LiveView.marker(base + "/live.json"));
    body.append(HealthLines.horizon(h));
    body.append("<p class=\"summary\">")
        .append(LiveView.field(name, "waiting", estimate(h.pendingCount(), h.pendingCountExact())))
        .append(" waiting · ")
        .append(LiveView.field(name, "processing", num(h.processingCount())))
        .append(" processing · ")
        .append(LiveView.field(name, "dead", estimate(h.dlqCount(), h.dlqCountExact())))
        .append(" dead · ")
        .append(
            LiveView.field(
                name, "blocked", atLeast(h.blockedAggregates(), h.blockedAggregatesExact())))
        .append(" blocked aggregates (")
        .append(LiveView.field(name, "blocked-messages", num(h.blockedCount())))
        .append(" messages behind a dead or backing-off head) · oldest waiting ")
        .append(LiveView.field(name, "oldest", h.oldestPendingAgeSeconds() + " s"))
        .append(" · ")
        .append(link(base + "/dlq", "dead letters"))
        .append(" · ")
        .append(link(base + "/audit", "audit log"))
        .append("</p>")
        .append(SearchPage.box(name, "event_id", ""))
        .append(HealthLines.vacuum(inbox.operations().vacuum()))
        .append(Html.chart(name, inbox.operations().throughput(LiveView.MINUTES)));

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
              num(b.waitingBehind()),
              esc(time(b.blockedSince()))));
    }
    body.append(
        Html.section(
            "Blocked aggregates",
            "blocked",
            Html.table(
                List.of(
                    "aggregate",
                    "reason",
                    "head",
                    "type",
                    "error",
                    "waiting behind",
                    "blocked since"),
                blocked,
                "No aggregate is blocked (or the inbox has no ordering).")));

    List<List<String>> lag = new ArrayList<>();
    for (PartitionLag p : inbox.operations().partitionLag()) {
      lag.add(
          List.of(
              p.partition() == null ? "all" : p.partition().toString(),
              num(p.waiting()) + (p.countsExact() ? "" : " (est.)"),
              num(p.backingOff()),
              num(p.behindBlocked()),
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
                    "behind a blocked head",
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
              w.concurrency() == null ? "" : w.concurrency().toString(),
              w.claimAhead() == null ? "" : w.claimAhead() ? "yes" : "no",
              esc(w.partitionsHeld().isEmpty() ? "" : w.partitionsHeld().toString()),
              esc(time(w.lastHeartbeat()))));
    }
    body.append(
        Html.section(
            "Workers",
            "workers",
            Html.table(
                List.of(
                    "worker",
                    "state",
                    "host",
                    "pid",
                    "assignment",
                    "concurrency",
                    "claim ahead",
                    "partitions",
                    "last heartbeat"),
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
              esc(time(g.firstDiedAt())),
              esc(time(g.lastDiedAt())),
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
                List.of("type", "error", "count", "first died", "last died", ""),
                groups,
                "No dead letters.")));
    if (writes) {
      body.append(
          Html.section(
              "Retention",
              "retention",
              actionForm(name, "purge", null, "run one retention step now")));
      body.append(
          Html.section(
              "Consumption",
              "consumption",
              paused == null
                  ? actionForm(name, "pause", null, "pause consumption")
                  : actionForm(name, "resume", null, "resume consumption")));
    }
    return Html.page(name, body.toString());
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

  static String typeQuery(String eventType) {
    return eventType == null ? "" : "event_type=" + enc(eventType);
  }
}
