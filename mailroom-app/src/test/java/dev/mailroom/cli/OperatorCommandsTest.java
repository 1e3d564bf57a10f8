package dev.mailroom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.collector.Collector;
import dev.mailroom.testkit.MailroomDb;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The operator subcommands on the same jar, in-process through picocli. */
class OperatorCommandsTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> env, String... args) {
    out.reset();
    err.reset();
    Collector.Io io =
        new Collector.Io(
            env, out, new PrintStream(err, true, StandardCharsets.UTF_8), Clock.systemUTC());
    return Main.commandLine(io).execute(args);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void install_is_rerunnable_and_honours_the_configured_names() throws Exception {
    TestDatabase fresh = TestPostgres.shared().newDatabase("mailroom_cli_install");
    MailroomDb db = MailroomDb.wrap(fresh);
    Map<String, String> env =
        new HashMap<>(
            Map.of(
                "MAILROOM_DATABASE_URL",
                db.url(),
                "MAILROOM_QUEUE_NAME",
                "q2",
                "MAILROOM_CHANNEL_NAME",
                "ch2"));
    assertThat(run(env, "install")).as(err.toString()).isZero();
    assertThat(out()).isEqualTo("installed; queue=q2 channel=ch2\n");
    assertThat(run(env, "install")).isZero();
    db.signUp("named");
    assertThat(db.count("SELECT count(*) FROM inbox.q2")).isEqualTo(1);
    assertThat(
            db.count(
                "SELECT count(*) FROM inbox.inbox_config WHERE inbox_name = 'q2' AND notify_channel = 'ch2'"))
        .isEqualTo(1);
    // psql re-runs keep the recorded names (no stray default inbox).
    db.execute("SELECT mailroom.setup_inbox()");
    assertThat(db.count("SELECT count(*) FROM inbox.inbox_config WHERE inbox_name = 'mailroom'"))
        .isZero();
  }

  @Test
  void health_status_dlq_and_replay() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_cli_ops");
    Map<String, String> env = Map.of("MAILROOM_DATABASE_URL", db.url());
    db.signUp("h1", "h2");

    assertThat(run(env, "health")).as(err.toString()).isZero();
    assertThat(out())
        .contains("\"inbox\": \"mailroom\"")
        .contains("\"pending_count\": 2")
        .contains("\"pending_count_exact\": true")
        .contains("\"dlq_count_exact\": true")
        .contains("\"blocked_aggregates_exact\": true")
        .contains("\"status\": ");
    // Thresholds of 0: counting stops at 1, so the two waiting tokens are an estimate.
    db.execute(
        "UPDATE inbox.inbox_config SET degraded_pending = 0, critical_pending = 0 WHERE inbox_name = 'mailroom'");
    assertThat(run(env, "health")).as(err.toString()).isEqualTo(1);
    assertThat(out()).contains("\"pending_count_exact\": false");
    db.execute(
        "UPDATE inbox.inbox_config SET degraded_pending = 10000, critical_pending = 100000 WHERE inbox_name = 'mailroom'");
    assertThat(run(env, "status")).as(err.toString()).isZero();
    assertThat(out()).contains("mailroom");

    db.execute(
        "UPDATE inbox.mailroom SET retry_count = 3, error = 'smtp down' WHERE event_id = (SELECT min(event_id) FROM inbox.mailroom)");
    String dead = "token-" + db.count("SELECT min(id) FROM tokens");
    assertThat(run(env, "dlq")).isZero();
    assertThat(out())
        .startsWith("event_id\tevent_type")
        .contains(dead + "\tactivation\t")
        .contains("smtp down");
    assertThat(err.toString()).contains("1 dead letter(s)");

    assertThat(run(env, "replay", "--event-id", dead)).as(err.toString()).isZero();
    assertThat(out()).isEqualTo("replayed 1 message(s)\n");
    assertThat(db.count("SELECT count(*) FROM inbox.mailroom_dlq")).isZero();
    assertThat(db.pending()).isEqualTo(2);

    db.execute("UPDATE inbox.mailroom SET retry_count = 3");
    assertThat(run(env, "replay", "--event-type", "activation")).isZero();
    assertThat(out()).isEqualTo("replayed 2 message(s)\n");
  }

  @Test
  void health_exits_1_when_the_inbox_is_critical() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_cli_critical");
    Map<String, String> env = Map.of("MAILROOM_DATABASE_URL", db.url());
    db.signUp("old");
    db.execute("UPDATE inbox.mailroom SET received_at = now() - interval '1 hour'");
    assertThat(run(env, "health")).as(err.toString()).isEqualTo(1);
    assertThat(out()).contains("\"status\": \"critical\"").contains("\"pending_count\": 1");
  }

  @Test
  void usage_errors_exit_2() {
    Map<String, String> env = Map.of("MAILROOM_DATABASE_URL", "dbname=x");
    assertThat(run(env, "replay")).isEqualTo(2);
    assertThat(run(env, "replay", "--event-id", "a", "--event-type", "b")).isEqualTo(2);
    assertThat(run(env, "nonsense")).isEqualTo(2);
    assertThat(run(Map.of("MAILROOM_DATABASE_URL", "dbname='x"), "health")).isEqualTo(2);
    assertThat(err.toString()).contains("invalid MAILROOM_DATABASE_URL");
    assertThat(run(env, "--help")).isZero();
  }

  @Test
  void serve_refuses_a_trusted_proxy_that_is_not_an_address() {
    Map<String, String> env =
        Map.of(
            "MAILROOM_DATABASE_URL", "postgresql://127.0.0.1:1/none",
            "MAILROOM_SECRET_KEY", "cafebabe".repeat(8),
            "MAILROOM_HTTP_PORT", "0",
            "MAILROOM_TRUSTED_PROXIES", "10.0.0.0/8, proxy.example.com");
    assertThat(run(env, "serve")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .startsWith("error: MAILROOM_TRUSTED_PROXIES must be")
        .contains("'proxy.example.com' is not an IPv4 or IPv6 address");
  }
}
