package dev.pginbox.inbox.postgres.internal.worker.connection;

import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker connection that reached a standby (during a failover, or through a URL or proxy that
 * pointed at one). It is not a lost connection and backing off exponentially would only delay the
 * return to the primary: the connection is closed and a new one (whose multi-host URL with {@code
 * targetServerType=primary} finds the primary once there is one) is tried every {@link #RETRY}. One
 * WARN line per episode (until a connection reaches a primary again), the rest at DEBUG.
 */
public final class Standby {

  /** How often a worker on a standby tries a new connection. */
  public static final Duration RETRY = Duration.ofMillis(500);

  private static final Logger LOG = LoggerFactory.getLogger(Standby.class);

  private Standby() {}

  /** Reports a refusal of the standby on the {@code role} connection, once per episode. */
  public static void refused(WorkerEvents events, String inbox, String role, Throwable error) {
    if (events.standby(error, RETRY)) {
      LOG.warn(
          "inbox {}: the {} connection reached a standby ({}); connecting again every {} ms"
              + " until it finds the primary",
          inbox,
          role,
          SqlStates.describe(error),
          RETRY.toMillis());
    } else {
      LOG.debug("inbox {}: {} connection still on a standby", inbox, role);
    }
  }
}
