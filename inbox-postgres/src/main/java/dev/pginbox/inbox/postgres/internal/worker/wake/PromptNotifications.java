package dev.pginbox.inbox.postgres.internal.worker.wake;

import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.PGStream;
import org.postgresql.core.QueryExecutorBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes pgJDBC's {@code getNotifications(timeout)} return as soon as it has read what arrived.
 *
 * <p>After reading a notification, pgJDBC (42.7) checks for more with a 1 ms blocking read, and
 * does so again after every notification that arrives within that millisecond (the check's back-off
 * is never set when it times out). A steady stream of notifications, one per commit at 1,000
 * commits/s, therefore keeps the call reading for tens of milliseconds before it returns anything:
 * measured on loopback, notify -> wake-up p50 32 ms at 1,000/s against 0.14 ms with this switched
 * off (docs/performance.md, "Wake-up latency"). Setting the driver's next-check time to "never"
 * leaves only the non-blocking check for bytes already received; anything else is read by the next
 * blocking call.
 *
 * <p>The field is private to the driver, so this is best effort: on a driver without it the
 * listener works as before, with the lag, and says so once.
 */
final class PromptNotifications {

  private static final Logger LOG = LoggerFactory.getLogger(PromptNotifications.class);
  private static final Field STREAM = field(QueryExecutorBase.class, "pgStream");
  private static final Field NEXT_CHECK = field(PGStream.class, "nextStreamAvailableCheckTime");
  private static final AtomicBoolean WARNED = new AtomicBoolean();

  private PromptNotifications() {}

  /** Switches the trailing wait off on this (LISTEN) connection; true when it could. */
  static boolean enable(Connection connection) {
    try {
      if (STREAM != null && NEXT_CHECK != null) {
        Object executor = connection.unwrap(BaseConnection.class).getQueryExecutor();
        if (executor instanceof QueryExecutorBase) {
          NEXT_CHECK.setLong(STREAM.get(executor), Long.MAX_VALUE);
          return true;
        }
      }
    } catch (SQLException | ReflectiveOperationException | RuntimeException e) {
      LOG.debug("could not switch off pgJDBC's trailing notification wait", e);
    }
    if (WARNED.compareAndSet(false, true)) {
      LOG.info(
          "this pgJDBC version keeps reading notifications while they keep coming; LISTEN wake-ups "
              + "may lag by milliseconds under a steady stream of commits");
    }
    return false;
  }

  private static Field field(Class<?> type, String name) {
    try {
      Field f = type.getDeclaredField(name);
      f.setAccessible(true);
      return f;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
