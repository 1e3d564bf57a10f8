package dev.pginbox.inbox.http;

import dev.pginbox.inbox.operations.ThroughputPoint;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/** HTML building blocks of the console: escaping, the page frame, tables, a throughput chart. */
final class Html {

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

  private static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
  private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

  private Html() {}

  /** Text and attribute values, escaped. */
  static String esc(Object value) {
    return HtmlText.escape(value);
  }

  /**
   * A time for people; PostgreSQL's {@code -infinity} and {@code infinity} (a message that never
   * failed has {@code next_attempt_at = '-infinity'}) and anything else outside years 1-9999 are
   * shown as such instead of failing the formatter.
   */
  static String time(Instant t) {
    if (t == null) {
      return "";
    }
    if (t.isBefore(EARLIEST)) {
      return "-infinity";
    }
    return t.isAfter(LATEST) ? "infinity" : TIME.format(t);
  }

  /** A count with thousands separators: "12,345". */
  static String num(long n) {
    return String.format(java.util.Locale.ROOT, "%,d", n);
  }

  static String page(String title, String body) {
    return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        + "<title>"
        + esc(title)
        + " · inbox console</title><link rel=\"stylesheet\" href=\"/assets/console.css\">"
        + "<script src=\"/assets/console.js\" defer></script></head><body>"
        + "<header><a class=\"brand\" href=\"/\">inbox console</a>"
        + "<nav><a href=\"/\">inboxes</a><a href=\"/audit\">audit log</a></nav></header><main>"
        + body
        + "</main></body></html>";
  }

  static String badge(String status) {
    String s = status == null ? "unknown" : status.toLowerCase(java.util.Locale.ROOT);
    return "<span class=\"badge " + esc(s) + "\">" + esc(s) + "</span>";
  }

  static String section(String title, String id, String content) {
    return "<section id=\"" + esc(id) + "\"><h2>" + esc(title) + "</h2>" + content + "</section>";
  }

  /** A table; cells are HTML already (escape what you put in). */
  static String table(List<String> headers, List<List<String>> rows, String empty) {
    if (rows.isEmpty()) {
      return "<p class=\"empty\">" + esc(empty) + "</p>";
    }
    StringBuilder t = new StringBuilder("<table><thead><tr>");
    headers.forEach(h -> t.append("<th>").append(esc(h)).append("</th>"));
    t.append("</tr></thead><tbody>");
    for (List<String> row : rows) {
      t.append("<tr>");
      row.forEach(c -> t.append("<td>").append(c).append("</td>"));
      t.append("</tr>");
    }
    return t.append("</tbody></table>").toString();
  }

  static String link(String href, Object text) {
    return "<a href=\"" + esc(href) + "\">" + esc(text) + "</a>";
  }

  /**
   * Processed and failed attempts per minute as an inline SVG bar chart, server-rendered: per
   * minute a bar of processed messages with the failed attempts stacked on it (class {@code
   * failed}); console.js redraws it from the live JSON (same geometry) between reloads.
   */
  static String chart(String inbox, List<ThroughputPoint> points) {
    long max = points.stream().mapToLong(p -> p.processed() + p.failed()).max().orElse(0);
    long total = points.stream().mapToLong(ThroughputPoint::processed).sum();
    long failed = points.stream().mapToLong(ThroughputPoint::failed).sum();
    int width = 2 * points.size();
    StringBuilder svg =
        new StringBuilder("<svg class=\"chart\" data-inbox=\"")
            .append(esc(inbox))
            .append("\" data-live=\"chart\" viewBox=\"0 0 ")
            .append(width)
            .append(" 20\" width=\"")
            .append(width * 2)
            .append("\" height=\"40\" preserveAspectRatio=\"none\" role=\"img\"><title>")
            .append(total)
            .append(" processed, ")
            .append(failed)
            .append(" failed attempts in the last hour, per minute</title>");
    for (int i = 0; i < points.size(); i++) {
      double processed = height(points.get(i).processed(), max);
      double failures = height(points.get(i).failed(), max);
      svg.append(bar(i, 20 - processed, processed, ""))
          .append(bar(i, 20 - processed - failures, failures, " class=\"failed\""));
    }
    return svg.append("</svg><span class=\"total\" data-inbox=\"")
        .append(esc(inbox))
        .append("\" data-live=\"total\">")
        .append(total)
        .append("/h")
        .append(failed > 0 ? " · " + failed + " failed" : "")
        .append("</span>")
        .toString();
  }

  private static double height(long n, long max) {
    return max == 0 ? 0 : Math.max(n > 0 ? 1 : 0, 20.0 * n / max);
  }

  private static String bar(int i, double y, double h, String attributes) {
    return String.format(
        java.util.Locale.ROOT,
        "<rect x=\"%d\" y=\"%.1f\" width=\"1.6\" height=\"%.1f\"%s/>",
        2 * i,
        y,
        h,
        attributes);
  }

  static String hidden(String name, String value) {
    return value == null
        ? ""
        : "<input type=\"hidden\" name=\"" + esc(name) + "\" value=\"" + esc(value) + "\">";
  }

  /** Rows per page of the console's lists. */
  static final int PAGE = 50;

  /** A count that is the planner's estimate when not exact: "~12,345". */
  static String estimate(long n, boolean exact) {
    return (exact ? "" : "~") + num(n);
  }

  /** A count that is a lower bound when not exact: "≥10,000". */
  static String atLeast(long n, boolean exact) {
    return (exact ? "" : "≥") + num(n);
  }

  static String shorten(String s) {
    return s == null || s.length() <= 200 ? s : s.substring(0, 200) + "…";
  }
}
