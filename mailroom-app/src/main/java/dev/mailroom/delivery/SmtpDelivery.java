package dev.mailroom.delivery;

import dev.mailroom.output.DeliveryOutcome;
import dev.mailroom.output.OutputRecord;
import dev.mailroom.output.TokenDelivery;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;

/**
 * MAILROOM_DELIVERY=smtp: one connection per batch, one message per token. The server's answer for
 * each recipient decides its outcome: a 5xx is permanent, a 4xx temporary; a connection that cannot
 * be opened or breaks mid-batch makes the rest of the batch temporary (retried with the inbox's
 * backoff), never lost.
 */
public final class SmtpDelivery implements TokenDelivery {

  private static final String TIMEOUT_MS = "30000";

  private final SmtpSettings settings;
  private final MailTemplates templates;
  private final Session session;
  private final InternetAddress from;
  private final String protocol;

  public SmtpDelivery(SmtpSettings settings, MailTemplates templates) {
    this.settings = settings;
    this.templates = templates;
    this.protocol = settings.tls() == SmtpSettings.Tls.TLS ? "smtps" : "smtp";
    this.session = Session.getInstance(properties(settings, protocol));
    try {
      this.from = new InternetAddress(settings.from(), true);
    } catch (AddressException e) {
      throw new dev.mailroom.config.ConfigException(
          DeliveryConfig.MAIL_FROM + " is not an email address: " + settings.from());
    }
  }

  private static Properties properties(SmtpSettings settings, String protocol) {
    String p = "mail." + protocol + ".";
    Properties props = new Properties();
    props.setProperty(p + "connectiontimeout", TIMEOUT_MS);
    props.setProperty(p + "timeout", TIMEOUT_MS);
    props.setProperty(p + "writetimeout", TIMEOUT_MS);
    props.setProperty(p + "auth", String.valueOf(settings.username() != null));
    if (settings.tls() == SmtpSettings.Tls.STARTTLS) {
      props.setProperty(p + "starttls.enable", "true");
      props.setProperty(p + "starttls.required", "true");
    }
    if (settings.tls() != SmtpSettings.Tls.NONE) {
      props.setProperty(p + "ssl.checkserveridentity", "true");
    }
    return props;
  }

  @Override
  public List<DeliveryOutcome> deliver(List<OutputRecord> records) {
    List<DeliveryOutcome> outcomes = new ArrayList<>(records.size());
    Transport transport;
    try {
      transport = session.getTransport(protocol);
      transport.connect(settings.host(), settings.port(), settings.username(), settings.password());
    } catch (MessagingException e) {
      return fillTemporary(outcomes, records.size(), "cannot connect: " + describe(e));
    }
    try {
      for (OutputRecord record : records) {
        MimeMessage message;
        try {
          message = message(templates.render(record));
        } catch (AddressException e) {
          outcomes.add(DeliveryOutcome.permanent("invalid address: " + e.getMessage()));
          continue;
        } catch (MessagingException e) {
          outcomes.add(DeliveryOutcome.permanent("cannot build the message: " + e.getMessage()));
          continue;
        }
        try {
          transport.sendMessage(message, message.getAllRecipients());
          outcomes.add(DeliveryOutcome.delivered());
        } catch (SendFailedException e) {
          outcomes.add(refused(e));
          if (!transport.isConnected()) {
            return fillTemporary(outcomes, records.size(), "connection closed: " + describe(e));
          }
        } catch (MessagingException e) {
          // The connection broke: this and the remaining emails go out again later.
          return fillTemporary(outcomes, records.size(), "connection lost: " + describe(e));
        }
      }
      return outcomes;
    } finally {
      try {
        transport.close();
      } catch (MessagingException e) {
        // Every outcome is decided; a failing QUIT changes none of them.
      }
    }
  }

  private MimeMessage message(Email email) throws MessagingException {
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

  /** The server refused this recipient or message: 5xx for good, anything else for now. */
  static DeliveryOutcome refused(SendFailedException e) {
    int code = -1;
    String answer = describe(e);
    if (e instanceof SMTPSendFailedException s) {
      code = s.getReturnCode();
    }
    for (Exception next = e.getNextException(); next != null; ) {
      if (next instanceof SMTPAddressFailedException a) {
        code = a.getReturnCode();
        answer = a.getMessage();
        break;
      }
      next = next instanceof MessagingException m ? m.getNextException() : null;
    }
    String detail = "SMTP " + (code < 0 ? "error" : code) + ": " + oneLine(answer);
    return code >= 500 && code < 600
        ? DeliveryOutcome.permanent(detail)
        : DeliveryOutcome.temporary(detail);
  }

  private static List<DeliveryOutcome> fillTemporary(
      List<DeliveryOutcome> outcomes, int size, String detail) {
    while (outcomes.size() < size) {
      outcomes.add(DeliveryOutcome.temporary(oneLine(detail)));
    }
    return outcomes;
  }

  private static String describe(Exception e) {
    Throwable cause = e.getCause();
    return e.getMessage() + (cause == null || cause == e ? "" : " (" + cause + ")");
  }

  private static String oneLine(String text) {
    String t = String.valueOf(text).replaceAll("[\\r\\n]+", " ").strip();
    return t.length() > 500 ? t.substring(0, 500) : t;
  }

  @Override
  public String name() {
    return "smtp";
  }
}
