package dev.mailroom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.collector.Collector;
import dev.mailroom.testkit.MailroomDb;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** blocked, lag, workers, dlq --groups, replay --group and audit, as tables and as JSON. */
class OperatorViewCommandsTest {

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
  void an_operator_finds_the_blocked_account_replays_its_error_group_and_sees_it_in_the_audit()
      throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_cli_views");
    Map<String, String> env = Map.of("MAILROOM_DATABASE_URL", db.url());
    long account = db.signUp("stuck").get(0);
    db.signUp("fine");
    // The account's activation token is dead; a password recovery waits behind it.
    db.execute(
        "UPDATE inbox.mailroom SET retry_count = 3, error = 'smtp 421 try again in 30 s'"
            + " WHERE aggregate_id = '"
            + account
            + "'");
    db.execute(
        "INSERT INTO inbox.mailroom (event_id, event_type, aggregate_id, payload)"
            + " VALUES ('later', 'password_recovery', '"
            + account
            + "', '{}')");

    assertThat(run(env, "blocked")).as(err.toString()).isZero();
    String[] lines = out().split("\n");
    assertThat(lines[0]).startsWith("AGGREGATE_ID  REASON");
    assertThat(lines).hasSize(2);
    assertThat(lines[1]).startsWith(account + " ").contains("dead_letter").contains("smtp 421");

    assertThat(run(env, "blocked", "--json")).isZero();
    assertThat(out())
        .startsWith("[\n  {\"aggregate_id\": \"" + account + "\", \"reason\": \"dead_letter\"")
        .contains("\"waiting_behind\": 1");

    assertThat(run(env, "dlq", "--groups")).isZero();
    assertThat(out()).contains("activation").contains("smtp <n> try again in <n> s");

    assertThat(run(env, "lag", "--json")).isZero();
    assertThat(out()).contains("\"partition\": \"all\"");
    assertThat(run(env, "workers")).isZero();
    assertThat(out()).startsWith("WORKER_ID");

    assertThat(run(env, "replay", "--group", "x")).isEqualTo(2);
    assertThat(
            run(
                env,
                "replay",
                "--event-type",
                "activation",
                "--group",
                "smtp <n> try again in <n> s"))
        .as(err.toString())
        .isZero();
    assertThat(out()).isEqualTo("replayed 1 message(s)\n");
    assertThat(db.count("SELECT count(*) FROM inbox.mailroom_dlq")).isZero();

    assertThat(run(env, "audit", "--json", "--limit", "1")).isZero();
    assertThat(out())
        .contains("\"action\": \"replay\"")
        .contains("\"actor\": \"" + System.getProperty("user.name") + "\"")
        .contains("\"rows_affected\": 1");
    assertThat(run(env, "health")).isZero();
    assertThat(out()).contains("\"blocked_aggregates\": 0");
  }

  @Test
  void find_looks_a_message_up_by_event_id_account_or_payload_and_explains_bad_input()
      throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_cli_find");
    Map<String, String> env = Map.of("MAILROOM_DATABASE_URL", db.url());
    long account = db.signUp("searched").get(0);
    db.signUp("other");
    long token =
        db.count(
            "SELECT (payload ->> 'token_id')::bigint FROM inbox.mailroom WHERE aggregate_id = ?",
            String.valueOf(account));

    assertThat(run(env, "find", "--aggregate-id", String.valueOf(account)))
        .as(err.toString())
        .isZero();
    String[] lines = out().split("\n");
    assertThat(lines[0]).startsWith("EVENT_ID  STATE");
    assertThat(lines).hasSize(2);
    String eventId = lines[1].substring(0, lines[1].indexOf(' '));

    assertThat(run(env, "find", "--event-id", eventId, "--json")).as(err.toString()).isZero();
    assertThat(out()).contains("\"aggregate_id\": \"" + account + "\"").contains("token_id");
    assertThat(run(env, "find", "--payload", "token_id = " + token)).as(err.toString()).isZero();
    assertThat(out().split("\n")).hasSize(2);
    assertThat(out()).contains(eventId);

    assertThat(run(env, "find", "--payload", "{\"token_id\": ")).isEqualTo(1);
    assertThat(err.toString()).contains("not valid JSON");
    assertThat(run(env, "find")).isEqualTo(2);
  }
}
