package dev.pginbox.inbox.http.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that accepts connections and reads requests, without blocking on any client: a
 * client that sends nothing or one byte a second costs a buffer, never a worker thread. It closes
 * connections past their deadline or beyond the limits, and hands each complete request to {@code
 * dispatch}.
 */
final class Reactor implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(Reactor.class);

  /** How often deadlines are checked: the precision of every timeout. */
  private static final long SWEEP_MILLIS = 100;

  private final ServerSocketChannel listener;
  private final Selector selector;
  private final HttpLimits limits;
  private final BiConsumer<Connection, RequestHead> dispatch;
  private final WaitingConnections waiting = new WaitingConnections();

  /** Connections handed to a worker and not closed yet; their count and deadlines. */
  private final Set<Connection> answering = ConcurrentHashMap.newKeySet();

  private final ByteBuffer buffer = ByteBuffer.allocate(16 * 1024);
  private volatile boolean running = true;

  Reactor(
      ServerSocketChannel listener, HttpLimits limits, BiConsumer<Connection, RequestHead> dispatch)
      throws IOException {
    this.listener = listener;
    this.selector = Selector.open();
    this.limits = limits;
    this.dispatch = dispatch;
    listener.configureBlocking(false);
    listener.register(selector, SelectionKey.OP_ACCEPT);
  }

  @Override
  public void run() {
    try {
      while (running) {
        selector.select(SWEEP_MILLIS);
        for (SelectionKey key : selector.selectedKeys()) {
          try {
            if (key.isValid() && key.isAcceptable()) {
              accept();
            } else if (key.isValid() && key.isReadable()) {
              read((Connection) key.attachment());
            }
          } catch (CancelledKeyException e) {
            // closed meanwhile by a worker: nothing left to read
          }
        }
        selector.selectedKeys().clear();
        sweep(System.nanoTime());
      }
    } catch (IOException | ClosedSelectorException e) {
      if (running) {
        LOG.error("the HTTP server stopped accepting connections", e);
      }
    } finally {
      waiting.snapshot().forEach(Connection::close);
      try {
        selector.close();
        listener.close();
      } catch (IOException e) {
        LOG.debug("closing the listener failed", e);
      }
    }
  }

  /** Stops accepting and reading; connections being answered finish on their own. */
  void stop() {
    running = false;
    selector.wakeup();
  }

  /** Called by the worker once the answer is out and the connection closed. */
  void answered(Connection c) {
    answering.remove(c);
  }

  Set<Connection> answering() {
    return answering;
  }

  private void accept() {
    while (true) {
      SocketChannel channel;
      try {
        channel = listener.accept();
      } catch (IOException e) {
        // Out of file descriptors, most likely: free one, and try again at the next round.
        LOG.warn("accepting a connection failed: {}", e.toString());
        Connection oldest = waiting.oldest();
        if (oldest != null) {
          drop(oldest, "no connection could be accepted");
        }
        return;
      }
      if (channel == null) {
        return;
      }
      try {
        admit(channel);
      } catch (IOException e) {
        LOG.debug("a new connection failed", e);
        close(channel);
      }
    }
  }

  private void admit(SocketChannel channel) throws IOException {
    if (waiting.size() + answering.size() >= limits.maxConnections()) {
      Connection oldest = waiting.oldest();
      if (oldest == null) {
        LOG.debug("{} connections are being answered: refusing another", answering.size());
        close(channel);
        return;
      }
      drop(oldest, "the connection cap was reached");
    }
    channel.configureBlocking(false);
    SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
    Connection c = new Connection(channel, key, limits, System.nanoTime());
    key.attach(c);
    if (waiting.count(c.address()) >= limits.maxWaitingPerAddress()) {
      drop(waiting.oldest(c.address()), "its address has too many connections without a request");
    }
    waiting.add(c);
  }

  private static void close(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // nothing more to do for a connection that never started
    }
  }

  private void read(Connection c) {
    try {
      while (true) {
        buffer.clear();
        int n = c.channel.read(buffer);
        if (n < 0) {
          waiting.remove(c);
          c.close();
          return;
        }
        if (n == 0) {
          return;
        }
        buffer.flip();
        if (c.receive(buffer, System.nanoTime())) {
          waiting.remove(c);
          c.key.interestOps(0);
          answering.add(c);
          dispatch.accept(c, c.complete(System.nanoTime()));
          return;
        }
      }
    } catch (RequestHead.Rejected e) {
      waiting.remove(c);
      LOG.debug("refused a request from {}: {} {}", c.remote, e.status, e.getMessage());
      c.refuse(e.status, e.getMessage());
    } catch (IOException e) {
      waiting.remove(c);
      c.close();
    }
  }

  private void sweep(long now) {
    for (Connection c : waiting.snapshot()) {
      if (c.overdue(now)) {
        waiting.remove(c);
        LOG.debug("{} did not send its request in time", c.remote);
        c.refuse(408, "the request did not arrive in time");
      }
    }
    for (Connection c : answering) {
      if (c.overdue(now)) {
        // The worker's next write fails and it lets go of the connection.
        LOG.debug("the answer to {} took too long", c.remote);
        answering.remove(c);
        c.close();
      }
    }
  }

  private void drop(Connection c, String why) {
    LOG.debug("closing {}: {}", c.remote, why);
    waiting.remove(c);
    c.close();
  }
}
