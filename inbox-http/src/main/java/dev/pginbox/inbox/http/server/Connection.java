package dev.pginbox.inbox.http.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One accepted connection while its request arrives: the bytes of the head, then of the body, each
 * bounded in size and in time. Touched by the reactor thread only until {@link #complete}; then it
 * belongs to the worker that answers it.
 */
final class Connection {

  private static final int FIRST_BUFFER = 1024;
  private static final int DISCARD_BYTES = 64 * 1024;

  final SocketChannel channel;
  final InetSocketAddress remote;
  final SelectionKey key;
  private final HttpLimits limits;

  private byte[] head = new byte[FIRST_BUFFER];
  private int headLength;
  private RequestHead request;
  private byte[] body;
  private int bodyLength;

  /** System.nanoTime() by which the current stage (head, body, answer) must be over. */
  private long deadline;

  Connection(SocketChannel channel, SelectionKey key, HttpLimits limits, long now)
      throws IOException {
    this.channel = channel;
    this.remote = (InetSocketAddress) channel.getRemoteAddress();
    this.key = key;
    this.limits = limits;
    this.deadline = now + limits.headerTimeout().toNanos();
  }

  InetAddress address() {
    return remote.getAddress();
  }

  boolean overdue(long now) {
    return now - deadline > 0;
  }

  /**
   * Takes bytes the client sent; true once the request is complete.
   *
   * @throws RequestHead.Rejected when the request breaks a limit or the grammar
   */
  boolean receive(ByteBuffer data, long now) throws RequestHead.Rejected, IOException {
    if (request == null) {
      int scanFrom = headLength - 2;
      headLength = append(data, limits.maxHeaderBytes());
      int end = RequestHead.end(head, scanFrom, headLength);
      if (end < 0) {
        if (headLength >= limits.maxHeaderBytes()) {
          throw new RequestHead.Rejected(
              431, "request head larger than " + limits.maxHeaderBytes() + " bytes");
        }
        return false;
      }
      request = RequestHead.parse(head, end, limits);
      startBody(end, now);
    }
    appendBody(data);
    return bodyLength == request.contentLength();
  }

  private void startBody(int headEnd, long now) throws IOException {
    body = new byte[Math.min(request.contentLength(), FIRST_BUFFER)];
    appendBody(ByteBuffer.wrap(head, headEnd, headLength - headEnd));
    head = null;
    deadline = now + limits.bodyTimeout().toNanos();
    if (bodyLength < request.contentLength()
        && "100-continue".equalsIgnoreCase(request.headers().getFirst("Expect"))) {
      channel.write(
          ByteBuffer.wrap("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
    }
  }

  private int append(ByteBuffer data, int max) {
    int length = headLength + Math.min(data.remaining(), max - headLength);
    if (length > head.length) {
      head = Arrays.copyOf(head, Math.min(max, Math.max(length, head.length * 2)));
    }
    data.get(head, headLength, length - headLength);
    return length;
  }

  private void appendBody(ByteBuffer data) {
    // Bytes past the declared length would be a second, pipelined request: answers close the
    // connection, so they are never read.
    int take = Math.min(data.remaining(), request.contentLength() - bodyLength);
    if (bodyLength + take > body.length) {
      body =
          Arrays.copyOf(
              body,
              Math.min(request.contentLength(), Math.max(bodyLength + take, body.length * 2)));
    }
    data.get(body, bodyLength, take);
    bodyLength += take;
  }

  /** Hands the request over: from now on the deadline is the answer's. */
  RequestHead complete(long now) {
    deadline = now + limits.responseTimeout().toNanos();
    return request;
  }

  byte[] body() {
    return body;
  }

  long deadline() {
    return deadline;
  }

  /** A short answer the client may or may not read, then the end of the connection. */
  void refuse(int status, String reason) {
    byte[] text = (reason + "\n").getBytes(StandardCharsets.UTF_8);
    String head =
        "HTTP/1.1 "
            + status
            + " "
            + Status.reason(status)
            + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
            + text.length
            + "\r\nConnection: close\r\n\r\n";
    ByteBuffer answer = ByteBuffer.allocate(head.length() + text.length);
    answer.put(head.getBytes(StandardCharsets.US_ASCII)).put(text).flip();
    try {
      channel.write(answer); // non-blocking: what does not fit in the socket buffer is dropped
      channel.shutdownOutput();
      discardArrived();
    } catch (IOException e) {
      // the client is gone already
    }
    close();
  }

  /**
   * Reads what has arrived already, at most {@value #DISCARD_BYTES} bytes: closing a socket with
   * unread bytes resets the connection, and a reset may destroy the answer before the client has
   * read it (a body over the limit is usually sent in one go, before the answer comes).
   */
  private void discardArrived() throws IOException {
    ByteBuffer sink = ByteBuffer.allocate(4096);
    int total = 0;
    int n;
    while (total < DISCARD_BYTES && (n = channel.read(sink)) > 0) {
      total += n;
      sink.clear();
    }
  }

  void close() {
    try {
      channel.close();
    } catch (IOException e) {
      // nothing more to do for a connection that is ending
    }
  }
}
