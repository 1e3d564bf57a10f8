package dev.mailroom.testkit;

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
 * open, and can drop every open connection at once, as a server restart or a NAT timeout would,
 * without the server noticing first.
 */
public final class CountingProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final int targetPort;
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger open = new AtomicInteger();
  private final List<Socket> sockets = new ArrayList<>();

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
    List<Socket> all;
    synchronized (sockets) {
      all = new ArrayList<>(sockets);
      sockets.clear();
    }
    all.forEach(CountingProxy::quietlyClose);
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        accepted.incrementAndGet();
        open.incrementAndGet();
        synchronized (sockets) {
          sockets.add(client);
          sockets.add(server);
        }
        daemon("proxy-up", () -> pump(client, server, true));
        daemon("proxy-down", () -> pump(server, client, false));
      } catch (IOException e) {
        // Closed: the test is over.
      }
    }
  }

  private void pump(Socket from, Socket to, boolean clientSide) {
    byte[] buffer = new byte[8192];
    try (InputStream in = from.getInputStream()) {
      OutputStream out = to.getOutputStream();
      for (int n; (n = in.read(buffer)) >= 0; ) {
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
