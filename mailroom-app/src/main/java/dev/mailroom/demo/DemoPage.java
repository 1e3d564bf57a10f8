package dev.mailroom.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.mailroom.web.PageSecurity;
import dev.pginbox.inbox.http.HtmlText;
import jakarta.mail.BodyPart;
import jakarta.mail.MessagingException;
import jakarta.mail.Multipart;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * {@code GET /}: the emails the demo's SMTP server caught, newest first, with their links and the
 * status of each recipient's account, so an activation (link, then button) shows up as "active".
 */
final class DemoPage implements HttpHandler {

  private static final Pattern LINK =
      Pattern.compile("https?://\\S+/(activate|recover)\\?token=[A-Za-z0-9_-]+");
  private static final Pattern CODE = Pattern.compile("^\\s+([0-9]{5})\\s*$", Pattern.MULTILINE);

  private final DemoMailbox mailbox;
  private final DataSource dataSource;
  private final String consoleNote;

  /**
   * @param consoleNote HTML: where the operator console is and how to log in
   */
  DemoPage(DemoMailbox mailbox, DataSource dataSource, String consoleNote) {
    this.mailbox = mailbox;
    this.dataSource = dataSource;
    this.consoleNote = consoleNote;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!exchange.getRequestURI().getPath().equals("/")) {
        send(exchange, 404, page("Not found", "<p><a href=\"/\">The demo mailbox</a></p>"));
        return;
      }
      StringBuilder rows = new StringBuilder();
      try (Connection c = dataSource.getConnection();
          PreparedStatement status =
              c.prepareStatement("SELECT status::text FROM public.accounts WHERE email = ?")) {
        for (MimeMessage m : mailbox.newest()) {
          rows.append(row(m, status));
        }
      } catch (SQLException | MessagingException e) {
        rows.append("<tr><td colspan=\"4\">cannot read: ")
            .append(HtmlText.escape(String.valueOf(e.getMessage())))
            .append("</td></tr>");
      }
      String body =
          "<p>Every sign-up of the demo ends in an email caught by the SMTP server embedded in"
              + " the demo. Click an activation link: the account turns <em>active</em>"
              + " (reload this page).</p>"
              + consoleNote
              + "<table><tr><th>to</th><th>subject</th><th>link</th><th>account</th></tr>"
              + rows
              + "</table>";
      exchange.getResponseHeaders().set("Refresh", "5");
      send(exchange, 200, page("mailroom demo: caught emails", body));
    }
  }

  private static String row(MimeMessage m, PreparedStatement status)
      throws MessagingException, SQLException, IOException {
    String to = m.getAllRecipients()[0].toString();
    String text = textPart(m);
    Matcher link = LINK.matcher(text);
    String href = link.find() ? link.group() : null;
    Matcher code = CODE.matcher(text);
    status.setString(1, to);
    String accountStatus = "?";
    try (ResultSet rs = status.executeQuery()) {
      if (rs.next()) {
        accountStatus = rs.getString(1);
      }
    }
    return "<tr><td>"
        + HtmlText.escape(to)
        + "</td><td>"
        + HtmlText.escape(String.valueOf(m.getSubject()))
        + "</td><td>"
        + (href == null
            ? ""
            : "<a href=\""
                + HtmlText.escape(href)
                + "\">"
                + HtmlText.escape(link.group(1))
                + "</a>")
        + (code.find() ? " code " + HtmlText.escape(code.group(1)) : "")
        + "</td><td class=\"status\">"
        + HtmlText.escape(accountStatus)
        + "</td></tr>";
  }

  private static String textPart(MimeMessage m) throws MessagingException, IOException {
    Object content = m.getContent();
    if (content instanceof Multipart multipart) {
      for (int i = 0; i < multipart.getCount(); i++) {
        BodyPart part = multipart.getBodyPart(i);
        if (part.isMimeType("text/plain")) {
          return String.valueOf(part.getContent());
        }
      }
    }
    return String.valueOf(content);
  }

  private static String page(String title, String body) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
        + HtmlText.escape(title)
        + "</title>"
        + PageSecurity.styleElement()
        + "</head><body><h1>"
        + HtmlText.escape(title)
        + "</h1>"
        + body
        + "</body></html>\n";
  }

  private static void send(HttpExchange exchange, int status, String html) throws IOException {
    byte[] bytes = html.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
