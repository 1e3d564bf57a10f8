package dev.pginbox.inbox.http.server;

import com.sun.net.httpserver.Headers;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The request line and headers of one request, parsed strictly: anything a proxy in front might
 * read differently (folded lines, two lengths, a chunked body) is refused rather than guessed.
 *
 * @param contentLength the declared body length (0 without a body)
 */
record RequestHead(String method, URI uri, String protocol, Headers headers, int contentLength) {

  /** A request refused before any handler saw it, with the status to answer. */
  static final class Rejected extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;

    Rejected(int status, String reason) {
      super(reason, null, false, false);
      this.status = status;
    }
  }

  /**
   * The index just past the blank line that ends the head in {@code bytes[0, length)}, or -1. Lines
   * may end with CRLF or a bare LF.
   */
  static int end(byte[] bytes, int from, int length) {
    for (int i = Math.max(0, from); i < length; i++) {
      if (bytes[i] != '\n') {
        continue;
      }
      if (i + 1 < length && bytes[i + 1] == '\n') {
        return i + 2;
      }
      if (i + 2 < length && bytes[i + 1] == '\r' && bytes[i + 2] == '\n') {
        return i + 3;
      }
    }
    return -1;
  }

  static RequestHead parse(byte[] bytes, int end, HttpLimits limits) throws Rejected {
    String[] lines = new String(bytes, 0, end, StandardCharsets.ISO_8859_1).split("\n", -1);
    String[] request = strip(lines[0]).split(" ", -1);
    if (request.length != 3 || !token(request[0])) {
      throw new Rejected(400, "malformed request line");
    }
    if (!request[2].equals("HTTP/1.1") && !request[2].equals("HTTP/1.0")) {
      throw new Rejected(505, "HTTP/1.0 and HTTP/1.1 only");
    }
    if (!request[1].startsWith("/")) {
      throw new Rejected(400, "the request target must be a path");
    }
    URI uri;
    try {
      uri = new URI(request[1]);
    } catch (URISyntaxException e) {
      throw new Rejected(400, "malformed request target");
    }
    Headers headers = headers(lines, limits);
    if (request[2].equals("HTTP/1.1") && count(headers, "Host") != 1) {
      throw new Rejected(400, "exactly one Host header is required");
    }
    int length = contentLength(headers, limits);
    return new RequestHead(request[0], uri, request[2], headers, length);
  }

  private static Headers headers(String[] lines, HttpLimits limits) throws Rejected {
    Headers headers = new Headers();
    int count = 0;
    for (int i = 1; i < lines.length; i++) {
      String line = strip(lines[i]);
      if (line.isEmpty()) {
        break;
      }
      if (++count > limits.maxHeaderCount()) {
        throw new Rejected(431, "more than " + limits.maxHeaderCount() + " header lines");
      }
      int colon = line.indexOf(':');
      if (colon <= 0 || !token(line.substring(0, colon))) {
        throw new Rejected(400, "malformed header line");
      }
      headers.add(line.substring(0, colon), line.substring(colon + 1).strip());
    }
    return headers;
  }

  private static int contentLength(Headers headers, HttpLimits limits) throws Rejected {
    if (headers.containsKey("Transfer-Encoding")) {
      throw new Rejected(411, "a request body needs a Content-Length");
    }
    List<String> lengths = headers.get("Content-Length");
    if (lengths == null) {
      return 0;
    }
    String first = lengths.get(0);
    if (!first.matches("[0-9]{1,18}") || lengths.stream().anyMatch(l -> !l.equals(first))) {
      throw new Rejected(400, "malformed Content-Length");
    }
    long length = Long.parseLong(first);
    if (length > limits.maxBodyBytes()) {
      throw new Rejected(413, "request body larger than " + limits.maxBodyBytes() + " bytes");
    }
    return (int) length;
  }

  private static int count(Headers headers, String name) {
    List<String> values = headers.get(name);
    return values == null ? 0 : values.size();
  }

  private static String strip(String line) {
    return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
  }

  /** RFC 9110 token characters: what methods and header names are made of. */
  private static boolean token(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok =
          c >= 'a' && c <= 'z'
              || c >= 'A' && c <= 'Z'
              || c >= '0' && c <= '9'
              || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
