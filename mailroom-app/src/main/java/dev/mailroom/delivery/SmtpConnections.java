package dev.mailroom.delivery;

import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The open SMTP connections kept between batches, so a batch does not pay for a TCP (and TLS)
 * handshake, EHLO and login. A kept connection is checked with a NOOP before it is lent again; one
 * the server or the network dropped meanwhile is replaced by a new one, so a drop between batches
 * costs no token a retry. Connections idle for {@link #IDLE_MILLIS} are closed (SMTP servers drop
 * idle clients after a few minutes anyway), and all of them on {@link #close()}.
 *
 * <p>Each connection is used by one thread at a time: {@link #take()} hands it out, {@link
 * #giveBack} or {@link #discard} ends the loan.
 */
final class SmtpConnections implements AutoCloseable {

  static final long IDLE_MILLIS = 30_000;

  private record Idle(Transport transport, long sinceNanos) {}

  private final Session session;
  private final String protocol;
  private final SmtpSettings settings;
  private final Deque<Idle> idle = new ArrayDeque<>();
  private final long idleMillis;
  private final ScheduledExecutorService closer;
  private boolean closed;

  SmtpConnections(Session session, String protocol, SmtpSettings settings) {
    this(session, protocol, settings, IDLE_MILLIS);
  }

  SmtpConnections(Session session, String protocol, SmtpSettings settings, long idleMillis) {
    this.session = session;
    this.idleMillis = idleMillis;
    this.protocol = protocol;
    this.settings = settings;
    this.closer =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "mailroom-smtp-idle");
              thread.setDaemon(true);
              return thread;
            });
    closer.scheduleWithFixedDelay(
        this::closeIdle, idleMillis, Math.max(1, idleMillis / 2), TimeUnit.MILLISECONDS);
  }

  /** A kept connection that still answers, else a new one. */
  Transport take() throws MessagingException {
    for (Transport kept = poll(); kept != null; kept = poll()) {
      // isConnected() sends a NOOP and closes the connection when the answer is not 250.
      if (kept.isConnected()) {
        return kept;
      }
    }
    Transport transport = session.getTransport(protocol);
    transport.connect(settings.host(), settings.port(), settings.username(), settings.password());
    return transport;
  }

  /** Keeps a connection that is in a clean state (between transactions) for the next batch. */
  void giveBack(Transport transport) {
    synchronized (this) {
      if (!closed) {
        idle.push(new Idle(transport, System.nanoTime()));
        return;
      }
    }
    quietlyClose(transport);
  }

  /** Closes a connection that broke or is in an unknown state. */
  void discard(Transport transport) {
    quietlyClose(transport);
  }

  private synchronized Transport poll() {
    Idle kept = idle.poll();
    return kept == null ? null : kept.transport();
  }

  private void closeIdle() {
    List<Transport> expired = new ArrayList<>();
    long limit = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(idleMillis);
    synchronized (this) {
      // The deque is most recently used first: the expired ones are at its end.
      while (!idle.isEmpty() && idle.peekLast().sinceNanos() - limit <= 0) {
        expired.add(idle.pollLast().transport());
      }
    }
    expired.forEach(SmtpConnections::quietlyClose);
  }

  @Override
  public void close() {
    List<Idle> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(idle);
      idle.clear();
    }
    closer.shutdownNow();
    all.forEach(kept -> quietlyClose(kept.transport()));
  }

  private static void quietlyClose(Transport transport) {
    try {
      transport.close();
    } catch (MessagingException e) {
      // QUIT is a courtesy: the connection is gone either way.
    }
  }
}
