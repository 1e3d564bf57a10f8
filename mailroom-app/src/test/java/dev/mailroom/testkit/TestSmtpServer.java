package dev.mailroom.testkit;

import com.icegreen.greenmail.Managers;
import com.icegreen.greenmail.mail.MailAddress;
import com.icegreen.greenmail.smtp.SmtpManager;
import com.icegreen.greenmail.smtp.SmtpServer;
import com.icegreen.greenmail.smtp.SmtpState;
import com.icegreen.greenmail.store.StoredMessage;
import com.icegreen.greenmail.util.ServerSetup;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.function.Function;

/**
 * A GreenMail SMTP server on 127.0.0.1 whose RCPT answers come from a policy (null accepts), so
 * tests can refuse single recipients with 4xx or 5xx replies. It can be stopped and started again
 * on the same port, keeping what it received.
 */
public final class TestSmtpServer implements AutoCloseable {

  private final int port;
  private final PolicyManagers managers;
  private SmtpServer server;

  private static final class PolicyManagers extends Managers {
    private final SmtpManager smtp;

    PolicyManagers(Function<String, String> policy) {
      this.smtp =
          new SmtpManager(getImapHostManager(), getUserManager()) {
            @Override
            public String checkRecipient(SmtpState state, MailAddress address) {
              return policy.apply(address.getEmail());
            }
          };
    }

    @Override
    public SmtpManager getSmtpManager() {
      return smtp;
    }
  }

  /** A server on a free port (the machine's ephemeral ports overlap any fixed range). */
  public TestSmtpServer(Function<String, String> policy) {
    this.port = freePort();
    this.managers = new PolicyManagers(policy);
  }

  public static TestSmtpServer acceptingAll() {
    return new TestSmtpServer(address -> null);
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public synchronized TestSmtpServer start() {
    server =
        new SmtpServer(new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP), managers);
    server.startService();
    try {
      if (!server.waitTillRunning(10_000)) {
        throw new IllegalStateException("the test SMTP server did not start on port " + port);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return this;
  }

  public synchronized void stop() {
    if (server != null) {
      server.stopService();
      server = null;
    }
  }

  public int port() {
    return port;
  }

  public List<MimeMessage> received() {
    return managers.getImapHostManager().getAllMessages().stream()
        .map(StoredMessage::getMimeMessage)
        .toList();
  }

  @Override
  public void close() {
    stop();
  }
}
