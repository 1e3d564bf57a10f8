package dev.pginbox.inbox.http;

import dev.pginbox.inbox.operations.PurgeResult;
import java.util.Map;

/**
 * The banner an inbox page shows after a write action. The redirect carries what was done and the
 * counts ({@code ?done=replay&count=3}), never a text: the page builds the sentence itself, so a
 * link from elsewhere cannot make the console display words of its choosing.
 */
final class Flash {

  private Flash() {}

  static String replayed(int count) {
    return "done=replay&count=" + count;
  }

  static String discarded(int count) {
    return "done=discard&count=" + count;
  }

  /** An action with one count: pause and resume (1 or 0: nothing to do), retry now. */
  static String done(String action, int count) {
    return "done=" + action + "&count=" + count;
  }

  static String purged(PurgeResult r) {
    return "done=purge&count="
        + (r.deletedProcessed() + r.deletedDead())
        + "&stripped="
        + r.strippedProcessed()
        + (r.more() ? "&more=true" : "");
  }

  /** The banner for a page's query, or null when it names no action done. */
  static String text(Map<String, String> query) {
    String done = query.get("done");
    Long count = number(query.get("count"));
    if (done == null || count == null) {
      return null;
    }
    return switch (done) {
      case "replay" -> "replayed " + count + " message(s)";
      case "discard" -> "discarded " + count + " message(s)";
      case "purge" -> purgeText(count, number(query.get("stripped")), query.get("more"));
      case "pause" -> count == 0 ? "the inbox was paused already" : "paused consumption";
      case "resume" -> count == 0 ? "the inbox was not paused" : "resumed consumption";
      case "retry_now" -> "made " + count + " message(s) due now";
      default -> null;
    };
  }

  private static String purgeText(long deleted, Long stripped, String more) {
    return "retention deleted "
        + deleted
        + " and stripped "
        + (stripped == null ? 0 : stripped)
        + " row(s)"
        + ("true".equals(more) ? "; more remain" : "");
  }

  private static Long number(String s) {
    return s != null && s.matches("[0-9]{1,18}") ? Long.parseLong(s) : null;
  }
}
