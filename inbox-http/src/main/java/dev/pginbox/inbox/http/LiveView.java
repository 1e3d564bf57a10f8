package dev.pginbox.inbox.http;

import static dev.pginbox.inbox.http.Html.esc;

import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.operations.InboxHealth;
import dev.pginbox.inbox.operations.ThroughputPoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The live part of the overview and inbox pages: counts, status and the throughput sparkline,
 * served as JSON ({@code /live.json} for every inbox, {@code /inbox/{name}/live.json} for one) and
 * marked in the pages' HTML ({@code data-inbox} and {@code data-live}) so that console.js rewrites
 * just those elements every {@value #POLL_SECONDS} s: nothing else of the page, ticked boxes and
 * typed text included, changes between reloads. The values are the same strings the pages render
 * ("~12,345" for an estimate), so the script only copies text.
 */
final class LiveView {

  /** How often the script polls (written into the page, read by the script). */
  static final int POLL_SECONDS = 10;

  /** The minutes of the sparkline. */
  static final int MINUTES = 60;

  private final InboxManager manager;

  LiveView(InboxManager manager) {
    this.manager = manager;
  }

  /** Every inbox ({@code name} null), or one, as the script reads it. */
  Map<String, Object> json(String name) {
    List<Object> inboxes = new ArrayList<>();
    for (String n : name == null ? manager.names() : List.of(name)) {
      Inbox inbox = manager.inbox(n);
      inboxes.add(values(n, inbox.health(), inbox.operations().throughput(MINUTES)));
    }
    return Map.of("inboxes", inboxes);
  }

  private static Map<String, Object> values(
      String name, InboxHealth h, List<ThroughputPoint> points) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("waiting", Html.estimate(h.pendingCount(), h.pendingCountExact()));
    fields.put("processing", Html.num(h.processingCount()));
    fields.put("dead", Html.estimate(h.dlqCount(), h.dlqCountExact()));
    fields.put("blocked", Html.atLeast(h.blockedAggregates(), h.blockedAggregatesExact()));
    fields.put("blocked-messages", Html.num(h.blockedCount()));
    fields.put("oldest", h.oldestPendingAgeSeconds() + " s");
    fields.put("lag", h.worstPartitionLagSeconds() + " s");
    Map<String, Object> inbox = new LinkedHashMap<>();
    inbox.put("name", name);
    inbox.put("status", h.status().name().toLowerCase(java.util.Locale.ROOT));
    inbox.put("fields", fields);
    inbox.put("processed", points.stream().mapToLong(ThroughputPoint::processed).toArray());
    inbox.put("failed", points.stream().mapToLong(ThroughputPoint::failed).toArray());
    return inbox;
  }

  /** The element the script looks for: where to poll and how often. */
  static String marker(String src) {
    return "<span id=\"live\" hidden data-live-src=\""
        + esc(src)
        + "\" data-live-every=\""
        + POLL_SECONDS
        + "\"></span>";
  }

  /** A value the script keeps current: {@code html} is what the page shows now. */
  static String field(String inbox, String field, String html) {
    return "<span data-inbox=\""
        + esc(inbox)
        + "\" data-live=\""
        + esc(field)
        + "\">"
        + html
        + "</span>";
  }
}
