package dev.mailroom.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.output.LineDelivery;
import dev.mailroom.output.TokenAction;
import dev.mailroom.output.TokenOutput;
import dev.mailroom.output.TokenSigner;
import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.SenderProtocol;
import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.HandlerAbortException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxTransaction;
import dev.pginbox.inbox.Outcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The batch handler in a real claim transaction (claimed with inbox.claim_mailroom, committed or
 * rolled back here), without the worker: eligibility, signing, line format, skipping, and what a
 * broken stdout leaves behind.
 */
class TokenCollectorTest {

  private MailroomDb db;
  private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
  private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
  private final TokenSigner signer = new TokenSigner(HexFormat.of().parseHex("cafebabe".repeat(8)));
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @BeforeEach
  void setUp() {
    db = MailroomDb.create("mailroom_handler");
  }

  private TokenCollector collector(OutputStream out) {
    return collector(out, messages -> {});
  }

  private TokenCollector collector(OutputStream out, IntConsumer unsent) {
    CollectorLog log =
        new CollectorLog(
            new PrintStream(stderr, true, StandardCharsets.UTF_8), Clock.systemUTC(), true);
    return new TokenCollector(
        signer, new LineDelivery(new TokenOutput(out)), log, registry, "mailroom", unsent);
  }

  /**
   * Claims up to {@code limit} messages, runs the handler, commits (or rolls back if it throws).
   */
  private BatchResult claimAndHandle(TokenCollector handler, int limit) throws Exception {
    try (Connection c = db.db.connect()) {
      c.setAutoCommit(false);
      List<InboxMessage> batch = new ArrayList<>();
      try (PreparedStatement s =
          c.prepareStatement(
              "SELECT event_id, event_type, aggregate_id, seq, priority, bucket"
                  + " FROM inbox.claim_mailroom(?)")) {
        s.setInt(1, limit);
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            batch.add(
                new InboxMessage(
                    rs.getString(1),
                    rs.getString(2),
                    "mailroom",
                    rs.getString(3),
                    null,
                    null,
                    null,
                    null,
                    0,
                    null,
                    rs.getLong(4),
                    rs.getInt(5),
                    rs.getInt(6)));
          }
        }
      }
      InboxTransaction tx =
          new InboxTransaction() {
            @Override
            public <T> T unwrap(Class<T> type) {
              return type.cast(c);
            }
          };
      try {
        BatchResult result = handler.handle(batch, tx);
        c.commit();
        return result;
      } catch (Exception e) {
        c.rollback();
        throw e;
      }
    }
  }

  private String out() {
    return stdout.toString(StandardCharsets.UTF_8);
  }

  @Test
  void eligible_tokens_are_signed_and_printed_in_the_original_format() throws Exception {
    db.signUp("alice", "bob");
    BatchResult result = claimAndHandle(collector(stdout), 10);
    assertThat(result.outcomes()).isEmpty();
    List<SenderProtocol.Parsed> records = SenderProtocol.checkOutput(out());
    assertThat(out()).hasLineCount(1);
    assertThat(records).extracting(SenderProtocol.Parsed::login).containsExactly("alice", "bob");
    SenderProtocol.Parsed alice = records.get(0);
    assertThat(alice.action()).isEqualTo('1');
    assertThat(alice.email()).isEqualTo("alice@x.test");
    assertThat(alice.code()).matches("[0-9]{5}");
    assertThat(alice.token())
        .isEqualTo(signer.sign(TokenAction.ACTIVATION, db.secretOf("alice"), alice.code()));
    assertThat(signer.verify(TokenAction.ACTIVATION, alice.token(), null)).isTrue();
    assertThat(db.pending()).isZero();
    assertThat(registry.counter("mailroom.tokens.sent", "inbox", "mailroom").count()).isEqualTo(2);
  }

  @Test
  void password_recovery_goes_first_and_signs_its_code() throws Exception {
    long id = db.signUp("carol").get(0);
    claimAndHandle(collector(new ByteArrayOutputStream()), 10);
    db.execute("UPDATE tokens SET consumed_at = extract(epoch FROM now()) WHERE account = " + id);
    db.signUp("dave");
    db.execute("SELECT mailroom.request_password_recovery('carol')");
    claimAndHandle(collector(stdout), 10);
    List<SenderProtocol.Parsed> records = SenderProtocol.checkOutput(out());
    assertThat(records).extracting(SenderProtocol.Parsed::action).containsExactly('2', '1');
    SenderProtocol.Parsed carol = records.get(0);
    assertThat(carol.token())
        .isEqualTo(signer.sign(TokenAction.PASSWORD_RECOVERY, db.secretOf("carol"), carol.code()));
    assertThat(signer.verify(TokenAction.PASSWORD_RECOVERY, carol.token(), carol.code())).isTrue();
  }

  @Test
  void ineligible_tokens_are_skipped_not_dead_lettered() throws Exception {
    List<Long> ids = db.signUp("consumed", "expired", "suspended", "fine", "badcode");
    db.execute(
        "UPDATE tokens SET consumed_at = 1 WHERE account = " + ids.get(0),
        "UPDATE tokens SET expires_at = 1 WHERE account = " + ids.get(1),
        "UPDATE accounts SET status = 'suspended' WHERE id = " + ids.get(2),
        "UPDATE tokens SET code = NULL WHERE account = " + ids.get(4));
    BatchResult result = claimAndHandle(collector(stdout), 10);
    assertThat(SenderProtocol.checkOutput(out()))
        .extracting(SenderProtocol.Parsed::login)
        .containsExactly("fine");
    assertThat(result.outcomes())
        .hasSize(4)
        .allSatisfy((id, o) -> assertThat(o.kind()).isEqualTo(Outcome.Kind.SKIPPED));
    assertThat(result.outcomes().values())
        .extracting(Outcome::reason)
        .containsExactlyInAnyOrder("consumed", "expired", "account is suspended", "code is empty");
    assertThat(db.pending()).isZero();
    assertThat(db.count("SELECT count(*) FROM inbox.mailroom_dlq")).isZero();
    assertThat(registry.counter("mailroom.tokens.skipped", "inbox", "mailroom").count())
        .isEqualTo(4);
    assertThat(stderr.toString(StandardCharsets.UTF_8)).contains("DEBUG: skipping token-");
  }

  /**
   * The budget counts emails: a batch claimed with ten permits whose four ineligible tokens send
   * nothing gives their four permits back (the clock stands still, so nothing refills).
   */
  @Test
  void skipped_tokens_give_their_send_permits_back() throws Exception {
    SendRateLimiter budget =
        new SendRateLimiter(
            1.0,
            10,
            () -> 0L,
            nanos -> {
              throw new AssertionError("the budget must not wait here");
            });
    assertThat(budget.acquire(10, Duration.ZERO)).isEqualTo(10);
    List<Long> ids = db.signUp("used", "late", "fine1", "blocked", "bad", "fine2");
    db.execute(
        "UPDATE tokens SET consumed_at = 1 WHERE account = " + ids.get(0),
        "UPDATE tokens SET expires_at = 1 WHERE account = " + ids.get(1),
        "UPDATE accounts SET status = 'suspended' WHERE id = " + ids.get(3),
        "UPDATE tokens SET code = NULL WHERE account = " + ids.get(4));

    claimAndHandle(collector(stdout, budget::release), 10);

    assertThat(SenderProtocol.checkOutput(out()))
        .extracting(SenderProtocol.Parsed::login)
        .containsExactlyInAnyOrder("fine1", "fine2");
    assertThat(budget.available()).isEqualTo(4.0);
  }

  @Test
  void a_batch_with_only_ineligible_tokens_prints_nothing() throws Exception {
    long id = db.signUp("gone").get(0);
    db.execute("UPDATE tokens SET consumed_at = 1 WHERE account = " + id);
    claimAndHandle(collector(stdout), 10);
    assertThat(out()).isEmpty();
  }

  @Test
  void more_than_ten_records_are_split_into_lines_the_sender_accepts() throws Exception {
    String[] logins = new String[23];
    for (int i = 0; i < logins.length; i++) {
      logins[i] = "bulk" + i;
    }
    db.signUp(logins);
    claimAndHandle(collector(stdout), 50);
    assertThat(out()).hasLineCount(3);
    assertThat(SenderProtocol.checkOutput(out())).hasSize(23);
  }

  @Test
  void a_broken_stdout_rolls_the_batch_back() throws Exception {
    db.signUp("p1", "p2");
    OutputStream broken =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw new IOException("Broken pipe");
          }
        };
    assertThatThrownBy(() -> claimAndHandle(collector(broken), 10))
        .isInstanceOf(HandlerAbortException.class)
        .hasMessageContaining("Broken pipe");
    assertThat(db.pending()).isEqualTo(2);
  }

  @Test
  void a_print_stream_in_error_rolls_the_batch_back() throws Exception {
    db.signUp("q1");
    PrintStream failing =
        new PrintStream(
            new OutputStream() {
              @Override
              public void write(int b) throws IOException {
                throw new IOException("Broken pipe");
              }
            });
    assertThatThrownBy(() -> claimAndHandle(collector(failing), 10))
        .isInstanceOf(HandlerAbortException.class);
    assertThat(db.pending()).isEqualTo(1);
  }

  @Test
  void event_ids_map_to_token_ids() {
    assertThat(TokenCollector.tokenId("token-42")).contains(42L);
    assertThat(TokenCollector.tokenId("token-x")).isEmpty();
    assertThat(TokenCollector.tokenId("other-1")).isEmpty();
  }
}
