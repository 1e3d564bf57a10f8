package dev.mailroom.delivery;

import dev.mailroom.output.DeliveryOutcome;
import dev.mailroom.output.OutputRecord;
import dev.mailroom.output.RecipientAddress;
import dev.mailroom.output.TokenDelivery;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;

/**
 * MAILROOM_DELIVERY=smtp: one message per token, a batch's messages split over up to {@link
 * SmtpSettings#connections()} connections sent in parallel, the connections kept open between
 * batches ({@link SmtpConnections}). The server's answer for each recipient decides its outcome: a
 * 5xx is permanent, a 4xx temporary; a connection that cannot be opened or breaks mid-batch makes
 * the rest of its share of the batch temporary (retried with the inbox's backoff), never lost.
 * Every share is finished before {@link #deliver} returns, so the batch's transaction commits only
 * outcomes the server gave: the at-least-once window stays one batch. A recipient that is not one
 * bare address ({@link RecipientAddress}) is a permanent failure before anything is sent.
 */
public final class SmtpDelivery implements TokenDelivery {

  private static final String TIMEOUT_MS = "30000";

  private final SmtpSettings settings;
  private final MailTemplates templates;
  private final SmtpMessages messages;
  private final SmtpConnections connections;
  private final ExecutorService senders;

  public SmtpDelivery(SmtpSettings settings, MailTemplates templates) {
    this.settings = settings;
    this.templates = templates;
    String protocol = settings.tls() == SmtpSettings.Tls.TLS ? "smtps" : "smtp";
    Session session = Session.getInstance(properties(settings, protocol));
    try {
      this.messages = new SmtpMessages(session, new InternetAddress(settings.from(), true));
    } catch (AddressException e) {
      throw new dev.mailroom.config.ConfigException(
          SmtpSettings.MAIL_FROM + " is not an email address: " + settings.from());
    }
    this.connections = new SmtpConnections(session, protocol, settings);
    AtomicInteger threads = new AtomicInteger();
    this.senders =
        Executors.newCachedThreadPool(
            task -> {
              Thread thread = new Thread(task, "mailroom-smtp-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
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
    int shares = Math.min(settings.connections(), records.size());
    if (shares <= 1) {
      return send(records);
    }
    int size = (records.size() + shares - 1) / shares;
    List<Future<List<DeliveryOutcome>>> others = new ArrayList<>();
    for (int from = size; from < records.size(); from += size) {
      List<OutputRecord> share = records.subList(from, Math.min(records.size(), from + size));
      others.add(senders.submit(() -> send(share)));
    }
    List<DeliveryOutcome> outcomes = new ArrayList<>(records.size());
    outcomes.addAll(send(records.subList(0, size)));
    for (Future<List<DeliveryOutcome>> other : others) {
      outcomes.addAll(finished(other));
    }
    return outcomes;
  }

  /**
   * A share's outcomes. Waits through interrupts: the emails may be on their way, so the batch must
   * not commit (or roll back) before the server's answers are known; the socket timeouts bound the
   * wait.
   */
  private static List<DeliveryOutcome> finished(Future<List<DeliveryOutcome>> share) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return share.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException r) {
            throw r;
          }
          throw new IllegalStateException(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Sends records one after the other on one connection. */
  private List<DeliveryOutcome> send(List<OutputRecord> records) {
    List<DeliveryOutcome> outcomes = new ArrayList<>(records.size());
    Transport transport;
    try {
      transport = connections.take();
    } catch (MessagingException e) {
      return fillTemporary(outcomes, records.size(), "cannot connect: " + describe(e));
    }
    boolean reusable = false;
    try {
      for (OutputRecord record : records) {
        Optional<String> notOneAddress = RecipientAddress.problem(record.email());
        if (notOneAddress.isPresent()) {
          outcomes.add(DeliveryOutcome.permanent(notOneAddress.get()));
          continue;
        }
        MimeMessage message;
        try {
          message = messages.build(templates.render(record));
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
      reusable = true;
      return outcomes;
    } finally {
      if (reusable) {
        connections.giveBack(transport);
      } else {
        connections.discard(transport);
      }
    }
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

  @Override
  public void close() {
    senders.shutdown();
    connections.close();
  }
}
