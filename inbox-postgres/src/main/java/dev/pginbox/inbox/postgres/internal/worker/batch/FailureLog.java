package dev.pginbox.inbox.postgres.internal.worker.batch;

import static dev.pginbox.inbox.postgres.internal.LogText.safe;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.Outcome;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the handler's failed attempts, under a logger of each inbox, {@value #LOGGER_PREFIX}NAME (so
 * an application can turn one inbox's down or up):
 *
 * <ul>
 *   <li>a message's first failure (claimed with no failed attempt yet) that the handler threw: WARN
 *       with the stack trace;
 *   <li>its later failures, and failures the handler returned ({@code Outcome.retry}, {@code
 *       Outcome.dead}): INFO, one line (an {@link Error}: WARN, one line);
 *   <li>at most {@value #STACK_TRACES_PER_MINUTE} stack traces a minute; beyond them a first
 *       failure is one WARN line;
 *   <li>at most {@value #LINES_PER_MINUTE} lines a minute in all; the failures beyond are counted
 *       and the count is logged with the next minute's first line.
 * </ul>
 *
 * <p>Memory stays the same whatever fails: a few counters, nothing per message. The minute is this
 * JVM's (the budget is this worker's alone, no decision between nodes rests on it). Every worker
 * thread of the inbox shares the budget.
 */
public final class FailureLog {

  static final String LOGGER_PREFIX = "dev.pginbox.inbox.failures.";
  static final int STACK_TRACES_PER_MINUTE = 10;
  static final int LINES_PER_MINUTE = 100;
  private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

  private final String inbox;
  private final Logger log;
  private final LongSupplier nanoClock;

  // Guarded by this: the current minute's budget.
  private long minuteStart;
  private int stackTraces;
  private int lines;
  private long unlogged;

  public FailureLog(String inbox) {
    this(inbox, LoggerFactory.getLogger(LOGGER_PREFIX + inbox), System::nanoTime);
  }

  public FailureLog(String inbox, Logger log, LongSupplier nanoClock) {
    this.inbox = inbox;
    this.log = log;
    this.nanoClock = nanoClock;
    this.minuteStart = nanoClock.getAsLong();
  }

  /** The handler threw on message {@code m}: a failed attempt charged to it. */
  void threw(InboxMessage m, Throwable error) {
    int attempt = m.retryCount() + 1;
    boolean first = m.retryCount() == 0;
    boolean warn = first || error instanceof Error;
    if (!(warn ? log.isWarnEnabled() : log.isInfoEnabled())) {
      return;
    }
    Grant grant = take(first);
    if (grant == Grant.NONE) {
      return;
    }
    if (grant == Grant.STACK_TRACE) {
      log.warn(
          "inbox {}: the handler failed on message {} (attempt {})",
          inbox,
          safe(m.eventId()),
          attempt,
          error);
    } else if (first) {
      log.warn(
          "inbox {}: the handler failed on message {} (attempt {}): {} (stack traces are limited"
              + " to {} a minute)",
          inbox,
          safe(m.eventId()),
          attempt,
          safe(ErrorText.headline(error)),
          STACK_TRACES_PER_MINUTE);
    } else {
      String line = "inbox {}: the handler failed on message {} again (attempt {}): {}";
      Object[] args = {inbox, safe(m.eventId()), attempt, safe(ErrorText.headline(error))};
      if (warn) {
        log.warn(line, args);
      } else {
        log.info(line, args);
      }
    }
  }

  /** The handler returned a failure for message {@code m} (retry or dead). */
  void returned(InboxMessage m, Outcome outcome) {
    if (!log.isInfoEnabled() || take(false) == Grant.NONE) {
      return;
    }
    log.info(
        "inbox {}: the handler returned {} for message {} (attempt {}): {}",
        inbox,
        outcome.kind().name().toLowerCase(Locale.ROOT),
        safe(m.eventId()),
        m.retryCount() + 1,
        safe(outcome.reason()));
  }

  /**
   * A batch handler threw on a part of several messages: nobody is charged yet, the part is handed
   * over again in halves.
   */
  void partFailed(int messages, Throwable error) {
    log.debug(
        "inbox {}: the batch handler failed on {} messages; handing them over again in halves",
        inbox,
        messages,
        error);
  }

  private enum Grant {
    NONE,
    LINE,
    STACK_TRACE
  }

  private synchronized Grant take(boolean wantsStackTrace) {
    long now = nanoClock.getAsLong();
    if (now - minuteStart >= MINUTE) {
      if (unlogged > 0) {
        log.warn(
            "inbox {}: {} more failed attempts were not logged in the last minute (at most {}"
                + " lines a minute; the meter inbox.messages.failed counts them all)",
            inbox,
            unlogged,
            LINES_PER_MINUTE);
      }
      minuteStart = now;
      stackTraces = 0;
      lines = 0;
      unlogged = 0;
    }
    if (lines >= LINES_PER_MINUTE) {
      unlogged++;
      return Grant.NONE;
    }
    lines++;
    if (wantsStackTrace && stackTraces < STACK_TRACES_PER_MINUTE) {
      stackTraces++;
      return Grant.STACK_TRACE;
    }
    return Grant.LINE;
  }
}
