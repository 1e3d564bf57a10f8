package dev.pginbox.inbox.http;

import static dev.pginbox.inbox.http.Html.esc;
import static dev.pginbox.inbox.http.Html.time;

import dev.pginbox.inbox.operations.BlockedAggregate;
import dev.pginbox.inbox.operations.FailedAttempt;
import dev.pginbox.inbox.operations.InboxOperations;
import dev.pginbox.inbox.operations.MessageDetail;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The message page's "since when": when the message started failing, when it died, since when it
 * blocks its aggregate (an ordered inbox's head), and its last failed attempts.
 */
final class FailureHistory {

  private FailureHistory() {}

  /** The definition-list rows of the times, empty for a message that never failed. */
  static String times(MessageDetail m, InboxOperations ops) {
    StringBuilder dl = new StringBuilder();
    if (m.failingSince() != null && !"processed".equals(m.state())) {
      dl.append(row("failing since", time(m.failingSince())));
    }
    if (m.diedAt() != null) {
      dl.append(row("died at", time(m.diedAt())));
    }
    BlockedAggregate head = blockedHead(m, ops);
    if (head != null) {
      dl.append(
          row(
              "blocked since",
              time(head.blockedSince())
                  + " ("
                  + head.reason().name().toLowerCase(Locale.ROOT)
                  + ", "
                  + head.waitingBehind()
                  + " waiting behind)"));
    }
    return dl.toString();
  }

  /** The attempt table, newest last; nothing for a message without recorded attempts. */
  static String attempts(MessageDetail m) {
    if (m.attempts().isEmpty()) {
      return "";
    }
    List<List<String>> rows = new ArrayList<>();
    for (FailedAttempt a : m.attempts()) {
      rows.add(
          List.of(
              String.valueOf(a.attempt()),
              esc(time(a.at())),
              "<span class=\"error\">" + esc(a.error()) + "</span>"));
    }
    return "<h2>Failed attempts</h2><p class=\"summary\">The last "
        + FailedAttempt.KEPT
        + " are kept, each error cut to 500 characters.</p>"
        + Html.table(List.of("attempt", "at", "error"), rows, "");
  }

  /**
   * The message as the blocking head of its aggregate, or null. Only a waiting or dead message with
   * an aggregate can block one; the blocked aggregates are read one bounded page at a time.
   */
  private static BlockedAggregate blockedHead(MessageDetail m, InboxOperations ops) {
    if (m.aggregateId() == null || "processed".equals(m.state())) {
      return null;
    }
    for (BlockedAggregate b : ops.blockedAggregates(Html.PAGE)) {
      if (b.eventId().equals(m.eventId())) {
        return b;
      }
    }
    return null;
  }

  private static String row(String term, String value) {
    return "<dt>" + esc(term) + "</dt><dd>" + esc(value) + "</dd>";
  }
}
