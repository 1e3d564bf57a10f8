package dev.pginbox.inbox.http;

import com.sun.net.httpserver.HttpExchange;
import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import dev.pginbox.inbox.operations.InboxOperations;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The read-only JSON API over the SQL operator functions. Every list is bounded by {@code limit}
 * (1..1000):
 *
 * <pre>
 * GET /api/inboxes                                 every inbox with its health
 * GET /api/inboxes/{inbox}/health | status | lag | workers
 * GET /api/inboxes/{inbox}/blocked?limit=          blocked aggregates
 * GET /api/inboxes/{inbox}/dlq-groups?limit=
 * GET /api/inboxes/{inbox}/dead-letters?event_type=&amp;error_group=&amp;limit=&amp;after_received_at=&amp;after_event_id=
 * GET /api/inboxes/{inbox}/messages/{event id}
 * GET /api/inboxes/{inbox}/messages?event_id=&amp;aggregate_id=&amp;payload=&amp;limit=   find (inbox.find_messages)
 * GET /api/inboxes/{inbox}/throughput?minutes=
 * GET /api/inboxes/{inbox}/audit?limit=&amp;before=   and GET /api/audit?limit=&amp;before= (all inboxes)
 * </pre>
 */
final class Api implements Route.Page {

  private final InboxManager manager;

  Api(InboxManager manager) {
    this.manager = manager;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    if (!"GET".equals(exchange.getRequestMethod())) {
      exchange.getResponseHeaders().set("Allow", "GET");
      Exchanges.send(exchange, 405, "text/plain; charset=utf-8", "only GET\n");
      return;
    }
    List<String> path = Paths.segments(exchange, "/api/");
    Map<String, String> q = Exchanges.query(exchange);
    Object body = answer(path, q);
    if (body == null) {
      Exchanges.send(exchange, 404, "text/plain; charset=utf-8", "not found\n");
    } else {
      Exchanges.send(exchange, 200, Json.CONTENT_TYPE, Json.write(body));
    }
  }

  @Override
  public void refused(HttpExchange exchange, InboxException e) throws IOException {
    List<String> path = Paths.segments(exchange, "/api/");
    String inbox = path.size() >= 2 && path.get(0).equals("inboxes") ? path.get(1) : null;
    String what;
    if (inbox == null) {
      what = path.equals(List.of("audit")) ? "the audit log" : "the inboxes";
    } else if (path.size() < 3) {
      what = "inbox " + inbox;
    } else {
      what = (path.get(2).equals("audit") ? "the audit log" : path.get(2)) + " of inbox " + inbox;
    }
    MissingGrant missing = MissingGrant.of(manager, what, inbox, false, e);
    Exchanges.send(exchange, MissingGrant.STATUS, "text/plain; charset=utf-8", missing.text());
  }

  private Object answer(List<String> path, Map<String, String> q) {
    if (path.equals(List.of("inboxes"))) {
      Map<String, Object> all = new LinkedHashMap<>();
      for (String name : manager.names()) {
        all.put(name, manager.inbox(name).health());
      }
      return all;
    }
    if (path.equals(List.of("audit"))) {
      return manager.auditLog(limit(q), before(q));
    }
    if (path.size() < 3 || !path.get(0).equals("inboxes")) {
      return null;
    }
    Inbox inbox = manager.inbox(path.get(1));
    InboxOperations ops = inbox.operations();
    String what = path.get(2);
    if (path.size() == 4 && what.equals("messages")) {
      return ops.message(path.get(3)).orElse(null);
    }
    if (path.size() != 3) {
      return null;
    }
    return switch (what) {
      case "health" -> inbox.health();
      case "status" -> Json.readTree(inbox.status().json());
      case "blocked" -> ops.blockedAggregates(limit(q));
      case "lag" -> ops.partitionLag();
      case "messages" ->
          ops.findMessages(q.get("event_id"), q.get("aggregate_id"), q.get("payload"), limit(q));
      case "workers" -> ops.workers();
      case "dlq-groups" -> ops.dlqGroups(limit(q));
      case "dead-letters" ->
          ops.deadLetterPage(
              selection(q), limit(q), time(q.get("after_received_at")), q.get("after_event_id"));
      case "throughput" -> ops.throughput(Exchanges.intParam(q, "minutes", 60, 1, 1440));
      case "vacuum" -> ops.vacuum();
      case "audit" -> ops.auditLog(limit(q), before(q));
      default -> null;
    };
  }

  static DeadLetterSelection selection(Map<String, String> q) {
    String type = q.get("event_type");
    String group = q.get("error_group");
    if (group != null) {
      return DeadLetterSelection.group(type, group);
    }
    return type == null ? null : DeadLetterSelection.eventType(type);
  }

  static int limit(Map<String, String> q) {
    return Exchanges.intParam(q, "limit", 100, 1, InboxOperations.MAX_LIMIT);
  }

  static Long before(Map<String, String> q) {
    String raw = q.get("before");
    if (raw == null || raw.isBlank()) {
      return null;
    }
    try {
      return Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw new Exchanges.BadRequest("before must be a number");
    }
  }

  static Instant time(String raw) {
    if (raw == null || raw.isBlank()) {
      return null;
    }
    try {
      return Instant.parse(raw);
    } catch (DateTimeParseException e) {
      throw new Exchanges.BadRequest(
          "expected an ISO-8601 instant, got " + raw.length() + " chars");
    }
  }
}
