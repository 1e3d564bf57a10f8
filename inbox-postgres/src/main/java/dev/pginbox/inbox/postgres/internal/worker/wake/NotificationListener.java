package dev.pginbox.inbox.postgres.internal.worker.wake;

import dev.pginbox.inbox.InboxNotFoundException;
import dev.pginbox.inbox.WorkerListener.WakeUpCause;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.worker.connection.NamedStatement;
import dev.pginbox.inbox.postgres.internal.worker.connection.ReconnectLoop;
import dev.pginbox.inbox.postgres.internal.worker.connection.RunControl;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerSql;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Holds the LISTEN connection and turns notifications into coordinator wake-ups. After every
 * (re)connection it posts CONNECTED, so the coordinator counts at once: notifications sent while
 * the connection was down are lost for good.
 */
public final class NotificationListener implements Runnable {

  /**
   * How long one wait for notifications lasts; stop wakes the listener rather than waiting this out
   * ({@link ListenerWake}).
   */
  private static final int WAIT_MILLIS = 5_000;

  private final RunControl run;
  private final ReconnectLoop reconnect;
  private final WorkerOptions options;
  private final WorkerEvents events;
  private final Wakeups wakeups;
  private final ClaimQueue queue;
  private final ListenerWake wake;
  private final Runnable onLeasesChanged;

  /**
   * {@code onLeasesChanged}: in the automatic partition mode, what a notification on the inbox's
   * lease channel does (null otherwise: that channel is not listened to).
   */
  public NotificationListener(
      RunControl run,
      ReconnectLoop reconnect,
      WorkerOptions options,
      WorkerEvents events,
      Wakeups wakeups,
      ClaimQueue queue,
      ListenerWake wake,
      Runnable onLeasesChanged) {
    this.run = run;
    this.reconnect = reconnect;
    this.options = options;
    this.events = events;
    this.wakeups = wakeups;
    this.queue = queue;
    this.wake = wake;
    this.onLeasesChanged = onLeasesChanged;
  }

  @Override
  public void run() {
    reconnect.run(run, "listener", true, this::listen);
  }

  private void listen(WorkerConnection wc, Runnable connected) throws SQLException {
    String channel = options.channel() != null ? options.channel() : channelOf(wc);
    if (channel == null) {
      run.fail(
          new InboxNotFoundException(
              "inbox " + options.inbox() + " does not exist", options.inbox(), null));
      return;
    }
    PGConnection pg = wc.connection().unwrap(PGConnection.class);
    String stopChannel = ListenerWake.channelOf(pg.getBackendPID());
    String leaseChannel = onLeasesChanged == null ? null : leaseChannelOf(wc);
    try (Statement s = wc.connection().createStatement()) {
      s.execute(
          "LISTEN "
              + quoted(channel)
              + "; LISTEN "
              + quoted(stopChannel)
              + (leaseChannel == null ? "" : "; LISTEN " + quoted(leaseChannel)));
    }
    wake.listening(stopChannel);
    PromptNotifications.enable(wc.connection());
    events.recovered("listener");
    connected.run();
    wakeups.post(Wakeups.Event.CONNECTED);
    Duration check = options.idleConnectionCheck();
    int wait = check == null ? WAIT_MILLIS : (int) Math.min(WAIT_MILLIS, check.toMillis());
    long quietSince = System.nanoTime();
    while (!run.stopping()) {
      PGNotification[] notifications = pg.getNotifications(wait);
      if (notifications != null && notifications.length > 0) {
        if (anyOn(notifications, channel)) {
          notified();
        }
        if (leaseChannel != null && anyOn(notifications, leaseChannel)) {
          onLeasesChanged.run();
        }
        quietSince = System.nanoTime();
      } else if (check != null && System.nanoTime() - quietSince >= check.toNanos()) {
        // Waiting reads, but a peer gone without closing the connection sends nothing: only a
        // query finds out. Its exception ends the session and the reconnect loop takes over.
        wc.ping();
        quietSince = System.nanoTime();
      }
    }
  }

  private static String quoted(String channel) {
    return "\"" + channel.replace("\"", "\"\"") + "\"";
  }

  private static boolean anyOn(PGNotification[] notifications, String channel) {
    for (PGNotification n : notifications) {
      if (n.getName().equals(channel)) {
        return true;
      }
    }
    return false;
  }

  /**
   * When any waiting message makes a batch, a free processor is handed the claim from here: one
   * thread hand-over less between the notification and the claim (the coordinator only keeps the
   * hint for later when every processor is busy). Otherwise the coordinator counts first.
   */
  private void notified() {
    if (!queue.claimsOnHint()) {
      wakeups.post(Wakeups.Event.NOTIFY);
      return;
    }
    events.wakeUp(WakeUpCause.NOTIFY);
    if (!queue.offer(null, 1)) {
      wakeups.post(Wakeups.Event.HINT);
    }
  }

  private String leaseChannelOf(WorkerConnection wc) throws SQLException {
    NamedStatement ps = wc.statement(WorkerSql.LEASE_CHANNEL).setString("inbox", options.inbox());
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** The inbox's own channel from its catalog row; null when there is no such inbox. */
  private String channelOf(WorkerConnection wc) throws SQLException {
    NamedStatement ps = wc.statement(WorkerSql.INBOX_CONFIG).setString("inbox", options.inbox());
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
