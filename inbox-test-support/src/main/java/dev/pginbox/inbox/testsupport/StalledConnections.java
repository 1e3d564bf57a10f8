package dev.pginbox.inbox.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Clients that tie up an HTTP server without ever finishing a request: idle connections (opened,
 * nothing sent) and slowloris connections (a request line, then one more header byte a second,
 * forever). Both kinds notice when the server closes them. {@link #status} asks the same server a
 * real question with a deadline, to see whether it still answers.
 */
public final class StalledConnections implements AutoCloseable {

  private final List<SocketChannel> channels = new ArrayList<>();
  private final List<Boolean> closedByServer = new ArrayList<>();
  private final ScheduledExecutorService trickle =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "slowloris");
            thread.setDaemon(true);
            return thread;
          });

  /**
   * Opens {@code idle} connections that send nothing and {@code slow} ones that trickle headers,
   * all from {@code source} (any address of the loopback interface on Linux: 127.0.0.2 is another
   * client to the server).
   */
  public static StalledConnections open(
      InetSocketAddress target, InetAddress source, int idle, int slow) {
    StalledConnections stalled = new StalledConnections();
    try {
      for (int i = 0; i < idle + slow; i++) {
        SocketChannel channel = SocketChannel.open();
        channel.bind(new InetSocketAddress(source, 0));
        channel.connect(target);
        channel.configureBlocking(false);
        if (i >= idle) {
          send(channel, "GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ");
        }
        stalled.channels.add(channel);
        stalled.closedByServer.add(false);
      }
    } catch (IOException e) {
      stalled.close();
      throw new UncheckedIOException(e);
    }
    stalled.trickle.scheduleAtFixedRate(() -> stalled.drip(idle), 1, 1, TimeUnit.SECONDS);
    return stalled;
  }

  public static StalledConnections open(InetSocketAddress target, int idle, int slow) {
    return open(target, InetAddress.getLoopbackAddress(), idle, slow);
  }

  /** How many of them the server has closed (an end of stream, a reset or a failed write). */
  public synchronized int closedByServer() {
    for (int i = 0; i < channels.size(); i++) {
      if (!closedByServer.get(i) && ended(channels.get(i))) {
        closedByServer.set(i, true);
      }
    }
    return (int) closedByServer.stream().filter(c -> c).count();
  }

  public synchronized int count() {
    return channels.size();
  }

  /**
   * The status code of {@code GET path} on a new connection from {@code source}; a {@link
   * SocketTimeoutException} when the server does not answer within {@code deadline}.
   */
  public static int status(
      InetSocketAddress target, InetAddress source, String path, Duration deadline)
      throws IOException {
    try (Socket socket = new Socket()) {
      socket.bind(new InetSocketAddress(source, 0));
      socket.connect(target, (int) deadline.toMillis());
      socket.setSoTimeout((int) deadline.toMillis());
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] statusLine = new byte[12];
      int read = 0;
      while (read < statusLine.length) {
        int n = in.read(statusLine, read, statusLine.length - read);
        if (n < 0) {
          throw new IOException("the server closed the connection without an answer");
        }
        read += n;
      }
      return Integer.parseInt(new String(statusLine, 9, 3, StandardCharsets.US_ASCII));
    }
  }

  public static int status(InetSocketAddress target, String path, Duration deadline)
      throws IOException {
    return status(target, InetAddress.getLoopbackAddress(), path, deadline);
  }

  private synchronized void drip(int idle) {
    for (int i = idle; i < channels.size(); i++) {
      if (!closedByServer.get(i)) {
        try {
          send(channels.get(i), "a");
        } catch (IOException e) {
          closedByServer.set(i, true);
        }
      }
    }
  }

  private static boolean ended(SocketChannel channel) {
    ByteBuffer buffer = ByteBuffer.allocate(1024);
    try {
      int n;
      while ((n = channel.read(buffer)) > 0) {
        buffer.clear(); // an error answer before the close: read past it
      }
      return n < 0;
    } catch (IOException e) {
      return true;
    }
  }

  private static void send(SocketChannel channel, String text) throws IOException {
    channel.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)));
  }

  @Override
  public synchronized void close() {
    trickle.shutdownNow();
    for (SocketChannel channel : channels) {
      try {
        channel.close();
      } catch (IOException e) {
        // closing a test client: nothing to do
      }
    }
  }
}
