package dev.mailroom.delivery;

import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.util.StreamProvider;
import java.nio.charset.StandardCharsets;
import org.eclipse.angus.mail.util.MailStreamProvider;

/** Builds the MIME message of an {@link Email}: a text and an HTML alternative, UTF-8. */
final class SmtpMessages {

  static {
    pinStreamProvider();
  }

  private final Session session;
  private final InternetAddress from;

  SmtpMessages(Session session, InternetAddress from) {
    this.session = session;
    this.from = from;
  }

  /**
   * Jakarta Mail 2.1 looks its {@link StreamProvider} up again for every message, body part, header
   * block and encoder: a system property, else a {@code ServiceLoader} scan of the class path. In
   * the collector's single jar that scan was about a third of the CPU spent per email. Naming the
   * provider the scan would find anyway (Angus, the only one shipped) turns each lookup into a
   * class-name resolution; a provider named by the user is kept.
   */
  static void pinStreamProvider() {
    String property = StreamProvider.class.getName();
    if (System.getProperty(property) == null) {
      System.setProperty(property, MailStreamProvider.class.getName());
    }
  }

  MimeMessage build(Email email) throws MessagingException {
    MimeMessage message = new MimeMessage(session);
    message.setFrom(from);
    message.setRecipient(Message.RecipientType.TO, new InternetAddress(email.to(), true));
    message.setSubject(email.subject(), StandardCharsets.UTF_8.name());
    message.setHeader("Auto-Submitted", "auto-generated");
    MimeBodyPart text = new MimeBodyPart();
    text.setText(email.text(), StandardCharsets.UTF_8.name(), "plain");
    MimeBodyPart html = new MimeBodyPart();
    html.setText(email.html(), StandardCharsets.UTF_8.name(), "html");
    MimeMultipart alternative = new MimeMultipart("alternative");
    alternative.addBodyPart(text);
    alternative.addBodyPart(html);
    message.setContent(alternative);
    message.saveChanges();
    return message;
  }
}
