package dev.mailroom.demo;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;

/** The demo's SMTP server: GreenMail on 127.0.0.1, keeping every email it receives in memory. */
final class DemoMailbox implements AutoCloseable {

  /** The page shows the newest emails only (the demo signs up a bounded number of accounts). */
  static final int MAX_SHOWN = 50;

  private final GreenMail greenMail;
  private final int port;

  private DemoMailbox(GreenMail greenMail, int port) {
    this.greenMail = greenMail;
    this.port = port;
  }

  static DemoMailbox start() {
    int port = freePort();
    GreenMail mail = new GreenMail(new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
    mail.start();
    return new DemoMailbox(mail, port);
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return port;
  }

  /** The newest emails first, at most {@value #MAX_SHOWN}. */
  List<MimeMessage> newest() {
    MimeMessage[] all = greenMail.getReceivedMessages();
    int from = Math.max(0, all.length - MAX_SHOWN);
    List<MimeMessage> shown = new java.util.ArrayList<>(List.of(all).subList(from, all.length));
    java.util.Collections.reverse(shown);
    return shown;
  }

  @Override
  public void close() {
    greenMail.stop();
  }
}
