package dev.mailroom.demo;

import dev.mailroom.collector.Collector;
import dev.mailroom.collector.CollectorLog;
import dev.mailroom.config.ConfigException;
import dev.mailroom.config.DataSources;
import dev.mailroom.config.MailroomConfig;
import dev.mailroom.ops.OperatorHttp;
import dev.mailroom.verify.SigningKeys;
import dev.mailroom.verify.TokenVerifier;
import dev.mailroom.web.HttpSettings;
import dev.mailroom.web.VerificationServer;
import dev.pginbox.inbox.http.Credentials;
import dev.pginbox.inbox.http.HtmlText;
import java.io.IOException;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import javax.sql.DataSource;

/**
 * {@code --demo}: the whole loop on one machine with no configuration. The collector (embedded
 * PostgreSQL unless MAILROOM_DATABASE_URL is set) signs up sample accounts and delivers their
 * emails by SMTP to a GreenMail server on 127.0.0.1; the verification server shows the caught
 * emails at {@code /}, and an activation link and the button on its page activate the account. The
 * operator console runs on the next port, with write actions and a login made up for this run
 * (shown on the mailbox page), and one sign-up's first email bounces ({@link DemoBounces}) so that
 * there is a dead letter to replay.
 */
public final class Demo {

  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

  /** The console's user when the visitor brought no credentials of their own. */
  static final String CONSOLE_USER = "demo";

  private final Collector.Io io;
  private final HttpSettings http;
  private final String consolePassword = generatedPassword();
  private volatile Collector collector;
  private volatile boolean stopped;

  public Demo(Collector.Io io) {
    this.io = io;
    this.http = HttpSettings.read(io.env());
  }

  public int run() {
    CollectorLog log = new CollectorLog(io.stderr(), io.clock(), false);
    try (DemoMailbox mailbox = DemoMailbox.start()) {
      Collector c = new Collector(withDemoDelivery(io, mailbox), DemoBounces::new, null);
      collector = c;
      if (stopped) {
        c.stop(null);
      }
      CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(c::run, Demo::thread);
      if (!c.awaitStarted(START_TIMEOUT) || exit.isDone()) {
        return exit.get();
      }
      Optional<MailroomConfig> config = c.runningConfig();
      if (config.isEmpty()) {
        return exit.get();
      }
      try (VerificationServer server = serve(config.get(), mailbox)) {
        log.info(
            "demo: open http://localhost:"
                + server.port()
                + "/ to see the emails; open an activation link and press its button to activate"
                + " the account. The operator console and its login are linked from that page.");
        return exit.get();
      } catch (IOException | ConfigException e) {
        log.error(
            "demo: cannot serve on "
                + http.address()
                + ": "
                + e.getMessage()
                + " (set "
                + HttpSettings.PORT
                + " to a free port; the console takes the one after it)");
        c.stop(null);
        exit.get();
        return Collector.EXIT_FAILURE;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Collector.EXIT_FAILURE;
    } catch (ExecutionException e) {
      log.error("demo: " + e.getCause());
      return Collector.EXIT_FAILURE;
    }
  }

  public void stop(String reason) {
    stopped = true;
    Collector c = collector;
    if (c != null) {
      c.stop(reason);
    }
  }

  private VerificationServer serve(MailroomConfig config, DemoMailbox mailbox) throws IOException {
    DataSource dataSource = DataSources.of(config.database());
    SigningKeys keys =
        new SigningKeys(
            config.secretKey(),
            SigningKeys.parsePrevious(io.env().get(SigningKeys.PREVIOUS_SECRET_KEYS)));
    VerificationServer server =
        VerificationServer.start(
            http.address(),
            new TokenVerifier(dataSource, keys),
            "<p><a href=\"/\">Back to the demo mailbox</a></p>");
    server.mount("/", new DemoPage(mailbox, dataSource, consoleNote()));
    try {
      DemoBounces.signUp(dataSource);
    } catch (SQLException e) {
      server.close();
      throw new IOException("cannot sign up " + DemoBounces.EMAIL + ": " + e.getMessage(), e);
    }
    return server;
  }

  /** The console's port: the one after the mailbox page's. */
  private int consolePort() {
    return http.port() == 0 ? 0 : http.port() + 1;
  }

  /** Where the console is and how to log in, for the mailbox page (served on loopback only). */
  private String consoleNote() {
    String link = "http://localhost:" + consolePort() + "/";
    boolean own = Credentials.fromEnvironment(io.env()).any();
    return "<p>The operator console: <a href=\""
        + HtmlText.escape(link)
        + "\">"
        + HtmlText.escape(link)
        + "</a>"
        + (own
            ? " (log in with the INBOX_HTTP_* credentials you set)."
            : " (log in as <code>"
                + CONSOLE_USER
                + "</code> with the password <code>"
                + HtmlText.escape(consolePassword)
                + "</code>, made up for this run).")
        + " The first email to <code>"
        + DemoBounces.EMAIL
        + "</code> bounces: find it under the dead letters, replay it, and the replay shows in the"
        + " audit log and its email here.</p>";
  }

  private static String generatedPassword() {
    byte[] bytes = new byte[15];
    new SecureRandom().nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The visitor's environment, with delivery pointed at the demo's SMTP server and pages. */
  private Collector.Io withDemoDelivery(Collector.Io io, DemoMailbox mailbox) {
    Map<String, String> env = new HashMap<>(io.env());
    env.put("MAILROOM_DELIVERY", "smtp");
    env.put("MAILROOM_SMTP_HOST", "127.0.0.1");
    env.put("MAILROOM_SMTP_PORT", String.valueOf(mailbox.port()));
    env.put("MAILROOM_SMTP_TLS", "none");
    env.remove("MAILROOM_SMTP_USERNAME");
    env.remove("MAILROOM_SMTP_PASSWORD");
    env.remove("MAILROOM_SMTP_PASSWORD_FILE");
    env.putIfAbsent("MAILROOM_MAIL_FROM", "mailroom@demo.test");
    env.put("MAILROOM_LINK_BASE_URL", "http://localhost:" + http.port());
    env.putIfAbsent("MAILROOM_BATCH_TIMEOUT", "500");
    // The collector's console, with write actions, on the port after the mailbox page.
    env.put(HttpSettings.PORT, String.valueOf(consolePort()));
    env.put(OperatorHttp.WRITE_ACTIONS, "true");
    if (!Credentials.fromEnvironment(io.env()).any()) {
      env.put(Credentials.USERS_ENV, CONSOLE_USER + ":" + consolePassword);
    }
    return new Collector.Io(env, io.stdout(), io.stderr(), io.clock());
  }

  private static void thread(Runnable r) {
    Thread t = new Thread(r, "mailroom-demo-collector");
    t.setDaemon(true);
    t.start();
  }
}
