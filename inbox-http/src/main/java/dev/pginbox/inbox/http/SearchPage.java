package dev.pginbox.inbox.http;

import static dev.pginbox.inbox.http.Html.esc;
import static dev.pginbox.inbox.http.Html.link;
import static dev.pginbox.inbox.http.Html.shorten;
import static dev.pginbox.inbox.http.Html.time;
import static dev.pginbox.inbox.http.Paths.enc;

import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.operations.MessageDetail;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Finding messages by event id, aggregate id or payload ({@code /inbox/{name}/search?by=&q=}): the
 * search box of the inbox page and its results, each linking to the message's page. Input the
 * database rejects is answered with 400 and the reason on the page, the box filled as it was.
 */
final class SearchPage {

  /** What the box searches by: the query parameter {@code by}, and its label. */
  private static final Map<String, String> KEYS =
      Map.of("event_id", "event id", "aggregate_id", "aggregate id", "payload", "payload");

  private static final List<String> ORDER = List.of("event_id", "aggregate_id", "payload");

  /** A page and its status. */
  record Answer(int status, String html) {}

  private final InboxManager manager;

  SearchPage(InboxManager manager) {
    this.manager = manager;
  }

  /** The search box: a GET form, so that a search is a link an operator can share. */
  static String box(String inbox, String by, String q) {
    StringBuilder f =
        new StringBuilder("<form class=\"search\" method=\"get\" action=\"/inbox/")
            .append(esc(enc(inbox)))
            .append("/search\"><select name=\"by\" aria-label=\"search by\">");
    for (String key : ORDER) {
      f.append("<option value=\"")
          .append(key)
          .append(key.equals(by) ? "\" selected>" : "\">")
          .append(esc(KEYS.get(key)))
          .append("</option>");
    }
    return f.append("</select> <input name=\"q\" size=\"40\" aria-label=\"search for\" value=\"")
        .append(esc(q))
        .append("\" placeholder=\"e-4411 · customer-17 · customer.id = 42\"> ")
        .append("<button>find</button></form>")
        .toString();
  }

  Answer search(String name, Map<String, String> query) {
    manager.inbox(name); // 404 for an inbox that does not exist, before anything else
    String by = query.getOrDefault("by", "event_id");
    String q = query.getOrDefault("q", "");
    String base = "/inbox/" + enc(name);
    String head = "<h1>" + link(base, name) + " · find messages</h1>" + box(name, by, q);
    if (!KEYS.containsKey(by)) {
      return failed(name, head, "search by event_id, aggregate_id or payload");
    }
    if (q.isBlank()) {
      return new Answer(200, Html.page(name + " search", head + bounds()));
    }
    List<MessageDetail> found;
    try {
      found =
          manager
              .inbox(name)
              .operations()
              .findMessages(
                  by.equals("event_id") ? q : null,
                  by.equals("aggregate_id") ? q : null,
                  by.equals("payload") ? q : null,
                  Html.PAGE);
    } catch (InvalidInboxArgumentException e) {
      return failed(name, head, reason(e));
    }
    List<List<String>> rows = new ArrayList<>();
    for (MessageDetail m : found) {
      rows.add(
          List.of(
              link(base + "/message/" + enc(m.eventId()), m.eventId()),
              Html.badge(m.state()),
              esc(m.eventType()),
              esc(m.aggregateId()),
              esc(time(m.receivedAt())),
              "<span class=\"error\">" + esc(shorten(m.error())) + "</span>",
              "<code>" + esc(shorten(m.payload())) + "</code>"));
    }
    String summary =
        "<p class=\"summary\" id=\"found\">"
            + (found.size() == Html.PAGE
                ? "the first " + Html.PAGE + " matches"
                : found.size() + " message(s)")
            + " with "
            + esc(KEYS.get(by))
            + " "
            + esc(by.equals("payload") ? "matching " + q : q)
            + "</p>";
    return new Answer(
        200,
        Html.page(
            name + " search",
            head
                + summary
                + Html.table(
                    List.of(
                        "event id", "state", "type", "aggregate", "received", "error", "payload"),
                    rows,
                    "No message found.")
                + bounds()));
  }

  private static Answer failed(String name, String head, String reason) {
    return new Answer(
        400,
        Html.page(
            name + " search",
            head + "<p class=\"warning search-error\">" + esc(reason) + "</p>" + bounds()));
  }

  /** What a search looks at, so that an empty result in a large inbox is read right. */
  private static String bounds() {
    return "<p class=\"summary\" data-no-refresh>An event id is looked up directly. An aggregate id or a payload"
        + " match (<code>customer.id = 42</code>, <code>status = \"open\"</code>, or a JSON object"
        + " the payload contains) uses an index where the table has one, and otherwise looks at"
        + " no more than the first 100,000 messages of the table: see docs/operations.md, \"Find a"
        + " message\", for the index to add.</p>";
  }

  /** The database's reason, without the statement context behind it. */
  private static String reason(InvalidInboxArgumentException e) {
    String message = e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse("");
    int error = message.indexOf("ERROR: ");
    return error < 0 ? message : message.substring(error + "ERROR: ".length());
  }
}
