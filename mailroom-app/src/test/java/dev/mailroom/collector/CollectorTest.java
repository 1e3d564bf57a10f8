package dev.mailroom.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.output.TokenAction;
import dev.mailroom.output.TokenSigner;
import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import dev.mailroom.testkit.SenderProtocol;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The collector end to end, in-process, against a real PostgreSQL: the tutorial, batching,
 * stopping.
 */
class CollectorTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private final TokenSigner signer = new TokenSigner(HexFormat.of().parseHex("cafebabe".repeat(8)));

  @Test
  void tutorial_walkthrough_account_to_line_to_activation() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_tutorial");
    try (RunningCollector c =
        RunningCollector.start(RunningCollector.env(db, "MAILROOM_BATCH_TIMEOUT", "500"))) {
      long id = db.signUp("user123").get(0);
      await().atMost(WAIT).until(() -> c.records().size() == 1);
      SenderProtocol.Parsed record = c.records().get(0);
      assertThat(record.action()).isEqualTo('1');
      assertThat(record.email()).isEqualTo("user123@x.test");
      assertThat(record.login()).isEqualTo("user123");
      assertThat(record.token())
          .hasSize(86)
          .isEqualTo(signer.sign(TokenAction.ACTIVATION, db.secretOf("user123"), record.code()));
      assertThat(signer.verify(TokenAction.ACTIVATION, record.token(), null)).isTrue();
      await().atMost(WAIT).until(() -> db.pending() == 0);

      db.execute(
          "UPDATE tokens SET consumed_at = extract(epoch FROM now()) WHERE account = "
              + id
              + " AND action = 'activation'");
      assertThat(
              db.count("SELECT count(*) FROM accounts WHERE id = " + id + " AND status = 'active'"))
          .isEqualTo(1);

      assertThat(c.stop()).isZero();
      assertThat(c.stderr())
          .containsPattern(
              "\\d{4}/\\d{2}/\\d{2} \\d{2}:\\d{2}:\\d{2} \\[PG\\] configured; channel=token_insert queue=mailroom limit=10 "
                  + "timeout=500ms healthcheck-interval=270000ms\n")
          .containsPattern(
              "\\[PG\\] connecting to host=\\S+ port=\\d+ dbname=\\S+ user=\\S+ sslmode=\\S+\n")
          .contains("[PG] connected\n")
          .contains("[PG] processing 1 rows... (timeout)\n");
      assertThat(c.stdout()).doesNotContain("cafebabe");
      assertThat(c.stderr()).doesNotContain("cafebabe");
    }
  }

  @Test
  void five_inserts_with_limit_three_give_a_full_line_then_the_rest_after_the_timeout()
      throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_batching");
    try (RunningCollector c =
        RunningCollector.start(
            RunningCollector.env(
                db, "MAILROOM_BATCH_LIMIT", "3", "MAILROOM_BATCH_TIMEOUT", "1000"))) {
      await().atMost(WAIT).until(c.collector::isConnected);
      // One commit, so all five are waiting when the collector looks: deterministic batches.
      db.execute(
          "BEGIN",
          "INSERT INTO accounts (email, login) VALUES ('b1@x.test', 'b1')",
          "INSERT INTO accounts (email, login) VALUES ('b2@x.test', 'b2')",
          "INSERT INTO accounts (email, login) VALUES ('b3@x.test', 'b3')",
          "INSERT INTO accounts (email, login) VALUES ('b4@x.test', 'b4')",
          "INSERT INTO accounts (email, login) VALUES ('b5@x.test', 'b5')",
          "COMMIT");
      await().atMost(WAIT).until(() -> c.records().size() == 5);
      List<String> lines = c.stdout().lines().toList();
      assertThat(lines).hasSize(2);
      assertThat(SenderProtocol.check(lines.get(0)))
          .extracting(SenderProtocol.Parsed::login)
          .containsExactly("b1", "b2", "b3");
      assertThat(SenderProtocol.check(lines.get(1)))
          .extracting(SenderProtocol.Parsed::login)
          .containsExactly("b4", "b5");
      String log = c.stderr();
      assertThat(log)
          .contains("[PG] processing 3 rows... (max reached)")
          .contains("[PG] processing 2 rows... (timeout)");
      assertThat(log.indexOf("(max reached)"))
          .isLessThan(log.indexOf("processing 2 rows... (timeout)"));
    }
  }

  @Test
  void three_accounts_in_one_transaction_all_come_out() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_onetx");
    try (RunningCollector c =
        RunningCollector.start(RunningCollector.env(db, "MAILROOM_BATCH_TIMEOUT", "300"))) {
      await().atMost(WAIT).until(c.collector::isConnected);
      db.execute(
          "BEGIN",
          "INSERT INTO accounts (email, login) VALUES ('o1@x.test', 'o1')",
          "INSERT INTO accounts (email, login) VALUES ('o2@x.test', 'o2')",
          "INSERT INTO accounts (email, login) VALUES ('o3@x.test', 'o3')",
          "COMMIT");
      await().atMost(WAIT).until(() -> c.records().size() == 3);
      assertThat(c.records())
          .extracting(SenderProtocol.Parsed::login)
          .containsExactly("o1", "o2", "o3");
      assertThat(c.stderr()).contains("NOTIFY called; waking up");
    }
  }

  @Test
  void backlog_waiting_before_start_is_collected() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_backlog");
    String[] logins = new String[25];
    for (int i = 0; i < logins.length; i++) {
      logins[i] = "bk" + i;
    }
    db.signUp(logins);
    try (RunningCollector c =
        RunningCollector.start(RunningCollector.env(db, "MAILROOM_BATCH_TIMEOUT", "200"))) {
      await().atMost(WAIT).until(() -> c.records().size() == 25);
      assertThat(c.stdout().lines())
          .allSatisfy(line -> assertThat(SenderProtocol.check(line)).hasSizeLessThanOrEqualTo(10));
    }
    assertThat(db.pending()).isZero();
  }

  @Test
  void send_rate_budget_delays_but_loses_nothing() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_rate");
    String[] logins = new String[12];
    for (int i = 0; i < logins.length; i++) {
      logins[i] = "rate" + i;
    }
    try (RunningCollector c =
        RunningCollector.start(
            RunningCollector.env(
                db,
                "MAILROOM_BATCH_LIMIT",
                "4",
                "MAILROOM_BATCH_TIMEOUT",
                "100",
                "MAILROOM_SEND_RATE",
                "20"))) {
      db.signUp(logins);
      await().atMost(WAIT).until(() -> c.records().size() == 12);
      assertThat(c.records()).extracting(SenderProtocol.Parsed::login).doesNotHaveDuplicates();
      assertThat(c.stop()).isZero();
    }
    assertThat(db.pending()).isZero();
  }

  /**
   * Password recovery (action 2) comes first, but 40 recoveries waiting ahead of 10 activations
   * under a budget of one email per batch still leave activations one batch in four.
   */
  @Test
  void a_flood_of_password_recoveries_leaves_activations_a_quarter_of_the_batches()
      throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_share");
    String[] active = new String[40];
    for (int i = 0; i < active.length; i++) {
      active[i] = "old" + i;
    }
    db.signUp(active);
    db.execute(
        "UPDATE public.accounts SET status = 'active'",
        "UPDATE inbox.mailroom SET processed_at = now()");
    for (String login : active) {
      db.execute("SELECT mailroom.request_password_recovery('" + login + "')");
    }
    db.signUp("new0", "new1", "new2", "new3", "new4", "new5", "new6", "new7", "new8", "new9");
    try (RunningCollector c =
        RunningCollector.start(
            RunningCollector.env(
                db,
                "MAILROOM_BATCH_LIMIT",
                "1",
                "MAILROOM_BATCH_TIMEOUT",
                "0",
                "MAILROOM_SEND_RATE",
                "200"))) {
      await().atMost(WAIT).until(() -> c.records().size() >= 20);
      List<SenderProtocol.Parsed> first = c.records().subList(0, 20);
      assertThat(first.stream().filter(r -> r.action() == '1')).hasSize(5);
      assertThat(first.stream().filter(r -> r.action() == '2')).hasSize(15);
      await().atMost(WAIT).until(() -> c.records().size() == 50);
      assertThat(c.stop()).isZero();
    }
    assertThat(db.pending()).isZero();
  }

  @Test
  void broken_stdout_rolls_back_and_exits_non_zero() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_broken");
    OutputStream broken =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw new IOException("Broken pipe");
          }
        };
    RunningCollector c =
        RunningCollector.startWithStdout(
            RunningCollector.env(db, "MAILROOM_BATCH_TIMEOUT", "100"), broken);
    db.signUp("lost1", "lost2");
    assertThat(c.exit.get(60, TimeUnit.SECONDS)).isEqualTo(Collector.EXIT_FAILURE);
    assertThat(c.stderr())
        .contains("ERROR: cannot write to stdout: Broken pipe")
        .contains("nothing was marked processed");
    assertThat(db.pending()).isEqualTo(2);
    assertThat(db.count("SELECT count(*) FROM inbox.mailroom WHERE retry_count > 0")).isZero();
  }

  @Test
  void configuration_errors_exit_with_2_and_the_message() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_badenv");
    for (Map.Entry<String, String> bad :
        Map.of(
                "MAILROOM_BATCH_LIMIT", "0",
                "MAILROOM_SECRET_KEY", "abc",
                "MAILROOM_HEALTHCHECK_INTERVAL", "10",
                "MAILROOM_DATABASE_URL", "dbname='x")
            .entrySet()) {
      RunningCollector c =
          RunningCollector.start(RunningCollector.env(db, bad.getKey(), bad.getValue()));
      assertThat(c.exit.get(30, TimeUnit.SECONDS)).as(bad.getKey()).isEqualTo(2);
      assertThat(c.stderr()).contains("[PG] ERROR: ").contains(bad.getKey());
    }
    Map<String, String> noKey = RunningCollector.env(db);
    noKey.remove("MAILROOM_SECRET_KEY");
    RunningCollector c = RunningCollector.start(noKey);
    assertThat(c.exit.get(30, TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(c.stderr()).contains("MAILROOM_SECRET_KEY must be a 64-character hex string");
  }

  @Test
  void invalid_numbers_warn_like_the_original_and_run_with_defaults() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_warn");
    try (RunningCollector c =
        RunningCollector.start(RunningCollector.env(db, "MAILROOM_BATCH_LIMIT", "lots"))) {
      await().atMost(WAIT).until(c.collector::isConnected);
      assertThat(c.stderr())
          .contains("[PG] WARN: invalid value for MAILROOM_BATCH_LIMIT: lots, using default: 10\n")
          .contains("limit=10 ");
    }
  }

  @Test
  void a_channel_the_inbox_does_not_notify_on_is_reported_and_polling_still_collects()
      throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_otherchannel");
    try (RunningCollector c =
        RunningCollector.start(
            RunningCollector.env(
                db, "MAILROOM_CHANNEL_NAME", "elsewhere", "MAILROOM_BATCH_TIMEOUT", "100"))) {
      assertThat(c.stderr())
          .contains(
              "WARN: inbox mailroom notifies on channel token_insert, not on "
                  + "MAILROOM_CHANNEL_NAME=elsewhere");
      db.signUp("polled");
      await().atMost(WAIT).until(() -> c.records().size() == 1);
    }
  }

  @Test
  void missing_inbox_is_a_clear_error() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_noinbox");
    RunningCollector c =
        RunningCollector.start(RunningCollector.env(db, "MAILROOM_QUEUE_NAME", "other"));
    assertThat(c.exit.get(30, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(c.stderr()).contains("inbox other does not exist; install the schema first");
  }
}
