package dev.pginbox.inbox.http.server;

import java.util.Map;

/** Reason phrases for the status lines this server writes. */
final class Status {

  private static final Map<Integer, String> REASONS =
      Map.ofEntries(
          Map.entry(100, "Continue"),
          Map.entry(200, "OK"),
          Map.entry(201, "Created"),
          Map.entry(204, "No Content"),
          Map.entry(301, "Moved Permanently"),
          Map.entry(302, "Found"),
          Map.entry(303, "See Other"),
          Map.entry(304, "Not Modified"),
          Map.entry(400, "Bad Request"),
          Map.entry(401, "Unauthorized"),
          Map.entry(403, "Forbidden"),
          Map.entry(404, "Not Found"),
          Map.entry(405, "Method Not Allowed"),
          Map.entry(408, "Request Timeout"),
          Map.entry(409, "Conflict"),
          Map.entry(410, "Gone"),
          Map.entry(411, "Length Required"),
          Map.entry(413, "Content Too Large"),
          Map.entry(421, "Misdirected Request"),
          Map.entry(429, "Too Many Requests"),
          Map.entry(431, "Request Header Fields Too Large"),
          Map.entry(500, "Internal Server Error"),
          Map.entry(503, "Service Unavailable"),
          Map.entry(505, "HTTP Version Not Supported"));

  private Status() {}

  static String reason(int status) {
    return REASONS.getOrDefault(status, "");
  }

  /** Answers that never carry a body. */
  static boolean bodiless(int status) {
    return status < 200 || status == 204 || status == 304;
  }
}
