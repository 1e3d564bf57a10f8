package dev.pginbox.inbox.postgres.internal.worker.batch;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * The error text a failed attempt stores, at most {@value #MAX_LENGTH} characters (what {@code
 * inbox.capped_error} keeps). For an exception: its first line ({@code Class: message}), then its
 * top frames and those of its causes. Enough to find where a handler failed from a dead letter
 * alone; the whole trace goes to the log (see {@link FailureLog}).
 *
 * <pre>
 * java.lang.IllegalStateException: no stock for MUG-1
 *     at com.example.Stock.take(Stock.java:42)
 *     at com.example.StockListener.on(StockListener.java:17)
 *     ... 31 more
 * Caused by: java.sql.SQLException: ...
 *     at ...
 * </pre>
 */
final class ErrorText {

  static final int MAX_LENGTH = 4000;
  static final int TOP_FRAMES = 8;
  static final int CAUSE_FRAMES = 3;
  static final int MAX_CAUSES = 3;

  /** A long message keeps this much, so that the frames still fit. */
  static final int MAX_MESSAGE = 2000;

  private static final int MAX_CAUSE_MESSAGE = 300;

  private ErrorText() {}

  static String of(Throwable error) {
    StringBuilder text = new StringBuilder();
    headline(text, error, MAX_MESSAGE);
    frames(text, error, TOP_FRAMES);
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    seen.add(error);
    Throwable cause = error.getCause();
    for (int n = 0; cause != null && n < MAX_CAUSES && seen.add(cause); n++) {
      text.append("\nCaused by: ");
      headline(text, cause, MAX_CAUSE_MESSAGE);
      frames(text, cause, CAUSE_FRAMES);
      cause = cause.getCause();
    }
    return capped(text.toString());
  }

  /** The first {@value #MAX_LENGTH} characters of {@code text}, or null. */
  static String capped(String text) {
    if (text == null) {
      return null;
    }
    return text.length() <= MAX_LENGTH ? text : text.substring(0, MAX_LENGTH);
  }

  /** {@code Class: message}, as {@link Throwable#toString()} has it, the message cut short. */
  static String headline(Throwable error) {
    StringBuilder text = new StringBuilder();
    headline(text, error, MAX_MESSAGE);
    return text.toString();
  }

  private static void headline(StringBuilder text, Throwable error, int maxMessage) {
    text.append(error.getClass().getName());
    String message = error.getLocalizedMessage();
    if (message != null) {
      text.append(": ");
      text.append(message, 0, Math.min(message.length(), maxMessage));
      if (message.length() > maxMessage) {
        text.append(" [...]");
      }
    }
  }

  private static void frames(StringBuilder text, Throwable error, int top) {
    StackTraceElement[] frames = error.getStackTrace();
    int shown = Math.min(top, frames.length);
    for (int i = 0; i < shown; i++) {
      text.append("\n\tat ").append(frames[i]);
    }
    if (frames.length > shown) {
      text.append("\n\t... ").append(frames.length - shown).append(" more");
    }
  }
}
