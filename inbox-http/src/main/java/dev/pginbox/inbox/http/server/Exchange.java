package dev.pginbox.inbox.http.server;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One request, read completely before any handler saw it, and its answer. Every answer ends the
 * connection ({@code Connection: close}): a connection never waits idle for a next request, so only
 * unfinished requests can hold one, and those have deadlines.
 */
final class Exchange extends HttpExchange {

  private final Connection connection;
  private final RequestHead request;
  private final HttpContext context;
  private final Headers responseHeaders = new Headers();
  private final Map<String, Object> attributes = new HashMap<>();
  private final OutputStream raw;
  private InputStream in;
  private OutputStream out;
  private BodyOutput body;
  private int status = -1;
  private boolean closed;

  Exchange(Connection connection, RequestHead request, HttpContext context) {
    this.connection = connection;
    this.request = request;
    this.context = context;
    this.raw =
        new BufferedOutputStream(new ChannelOutput(connection.channel, connection.deadline()));
    this.in = new ByteArrayInputStream(connection.body(), 0, request.contentLength());
    this.out = new PendingBody();
  }

  @Override
  public Headers getRequestHeaders() {
    return request.headers();
  }

  @Override
  public Headers getResponseHeaders() {
    return responseHeaders;
  }

  @Override
  public URI getRequestURI() {
    return request.uri();
  }

  @Override
  public String getRequestMethod() {
    return request.method();
  }

  @Override
  public HttpContext getHttpContext() {
    return context;
  }

  @Override
  public InputStream getRequestBody() {
    return in;
  }

  @Override
  public OutputStream getResponseBody() {
    return out;
  }

  @Override
  public void sendResponseHeaders(int code, long length) throws IOException {
    if (body != null) {
      throw new IOException("the response headers were sent already");
    }
    status = code;
    boolean bodiless = Status.bodiless(code);
    boolean head = "HEAD".equals(request.method());
    if (!bodiless && length > 0) {
      responseHeaders.set("Content-Length", Long.toString(length));
    } else if (!bodiless && length == 0 && !head) {
      responseHeaders.set("Transfer-Encoding", "chunked");
    } else if (!bodiless && length < 0) {
      responseHeaders.set("Content-Length", "0");
    }
    responseHeaders.set("Connection", "close");
    responseHeaders.set(
        "Date", DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC)));
    raw.write(statusAndHeaders(code).getBytes(StandardCharsets.ISO_8859_1));
    if (bodiless || head || length < 0) {
      body = BodyOutput.none(raw);
      raw.flush();
    } else {
      body = length == 0 ? BodyOutput.chunked(raw) : BodyOutput.fixed(raw, length);
    }
  }

  private String statusAndHeaders(int code) {
    StringBuilder head =
        new StringBuilder(request.protocol().equals("HTTP/1.0") ? "HTTP/1.0 " : "HTTP/1.1 ")
            .append(code)
            .append(' ')
            .append(Status.reason(code))
            .append("\r\n");
    for (Map.Entry<String, List<String>> header : responseHeaders.entrySet()) {
      for (String value : header.getValue()) {
        if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
          throw new IllegalArgumentException("a line break in header " + header.getKey());
        }
        head.append(header.getKey()).append(": ").append(value).append("\r\n");
      }
    }
    return head.append("\r\n").toString();
  }

  @Override
  public InetSocketAddress getRemoteAddress() {
    return connection.remote;
  }

  @Override
  public int getResponseCode() {
    return status;
  }

  @Override
  public InetSocketAddress getLocalAddress() {
    try {
      return (InetSocketAddress) connection.channel.getLocalAddress();
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public String getProtocol() {
    return request.protocol();
  }

  @Override
  public Object getAttribute(String name) {
    return attributes.get(name);
  }

  @Override
  public void setAttribute(String name, Object value) {
    attributes.put(name, value);
  }

  @Override
  public void setStreams(InputStream i, OutputStream o) {
    if (i != null) {
      in = i;
    }
    if (o != null) {
      out = o;
    }
  }

  @Override
  public HttpPrincipal getPrincipal() {
    return null;
  }

  /** Ends the body and the connection; a second call does nothing. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (body != null) {
        body.close();
      }
      raw.close();
      connection.channel.shutdownOutput();
    } catch (IOException e) {
      // the client left or took too long: the connection ends all the same
    } finally {
      connection.close();
    }
  }

  boolean answered() {
    return body != null;
  }

  /** The body stream handed out before the headers are sent: it writes to the real one. */
  private final class PendingBody extends OutputStream {
    @Override
    public void write(int b) throws IOException {
      started().write(b);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      started().write(bytes, offset, length);
    }

    @Override
    public void flush() throws IOException {
      started().flush();
    }

    @Override
    public void close() throws IOException {
      if (body != null) {
        body.close();
      }
      Exchange.this.close();
    }

    private OutputStream started() throws IOException {
      if (body == null) {
        throw new IOException("sendResponseHeaders must come before the body");
      }
      return body;
    }
  }
}
