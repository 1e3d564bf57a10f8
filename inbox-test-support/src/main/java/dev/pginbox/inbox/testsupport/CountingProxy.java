package dev.pginbox.inbox.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 in front of a local server: counts the connections clients open and have
 * open, and can drop every open connection at once, as a server restart would, or silence them, as
 * a NAT or firewall that forgot them does: both ends stay open and nothing more arrives (a
 * half-open connection). Connections opened later pass as usual.
 */
public final class CountingProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final int targetPort;
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger open = new AtomicInteger();
  private final List<Link> links = new ArrayList<>();

  /** One proxied connection; once silent, whatever either side sends is swallowed. */
  private static final class Link {
    final Socket client;
    final Socket server;
    volatile boolean silent;

    Link(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }
  }

  public CountingProxy(int targetPort) {
    this.targetPort = targetPort;
    try {
      this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    daemon("proxy-accept", this::acceptLoop);
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** Connections accepted so far. */
  public int accepted() {
    return accepted.get();
  }

  /** Connections whose client has not closed them yet. */
  public int open() {
    return open.get();
  }

  /** Closes both sides of every open connection. */
  public void dropAll() {
    List<Link> all;
    synchronized (links) {
      all = new ArrayList<>(links);
      links.clear();
    }
    for (Link link : all) {
      quietlyClose(link.client);
      quietlyClose(link.server);
    }
  }

  /**
   * Every open connection goes silent without being closed: both sides' writes succeed and are
   * never delivered, so each side waits for an answer that never comes.
   */
  public void silenceAll() {
    synchronized (links) {
      links.forEach(link -> link.silent = true);
    }
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        accepted.incrementAndGet();
        open.incrementAndGet();
        Link link = new Link(client, server);
        synchronized (links) {
          links.add(link);
        }
        daemon("proxy-up", () -> pump(link, client, server, true));
        daemon("proxy-down", () -> pump(link, server, client, false));
      } catch (IOException e) {
        // Closed: the test is over.
      }
    }
  }

  private void pump(Link link, Socket from, Socket to, boolean clientSide) {
    byte[] buffer = new byte[8192];
    try (InputStream in = from.getInputStream()) {
      OutputStream out = to.getOutputStream();
      for (int n; (n = in.read(buffer)) >= 0; ) {
        if (link.silent) {
          continue;
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // Dropped or reset: the connection is over either way.
    } finally {
      if (clientSide) {
        open.decrementAndGet();
      }
      quietlyClose(from);
      quietlyClose(to);
    }
  }

  private static void daemon(String name, Runnable task) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    thread.start();
  }

  private static void quietlyClose(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // Already closed.
    }
  }

  @Override
  public void close() {
    try {
      listener.close();
    } catch (IOException e) {
      // Closing anyway.
    }
    dropAll();
  }
}
