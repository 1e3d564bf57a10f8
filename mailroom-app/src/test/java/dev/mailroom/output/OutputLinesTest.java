package dev.mailroom.output;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.testkit.SenderProtocol;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutputLinesTest {

  private static OutputRecord record(TokenAction action, int i) {
    return new OutputRecord(
        action, "u" + i + "@x.test", "u" + i, "t".repeat(86), "0000" + (i % 10));
  }

  @Test
  void no_records_no_line() {
    assertThat(OutputLines.of(List.of())).isEmpty();
  }

  @Test
  void eleventh_record_of_an_action_starts_a_new_line() {
    List<OutputRecord> records = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      records.add(record(TokenAction.ACTIVATION, i));
    }
    List<String> lines = OutputLines.of(records);
    assertThat(lines).hasSize(3);
    assertThat(lines).allSatisfy(line -> SenderProtocol.check(line));
    assertThat(lines.stream().mapToInt(l -> SenderProtocol.check(l).size()).toArray())
        .containsExactly(10, 10, 5);
  }

  @Test
  void ten_of_each_action_share_a_line_and_order_is_kept() {
    List<OutputRecord> records = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      records.add(record(TokenAction.PASSWORD_RECOVERY, i));
      records.add(record(TokenAction.ACTIVATION, i));
    }
    records.add(record(TokenAction.ACTIVATION, 99));
    List<String> lines = OutputLines.of(records);
    assertThat(lines).hasSize(2);
    assertThat(SenderProtocol.check(lines.get(0))).hasSize(20);
    assertThat(lines.get(0)).startsWith("2,u0@x.test,u0,");
    assertThat(lines.get(1)).isEqualTo(records.get(20).format());
  }

  @Test
  void any_mix_keeps_every_record_once_in_order_within_the_senders_limits() {
    java.util.Random random = new java.util.Random(42);
    for (int round = 0; round < 200; round++) {
      List<OutputRecord> records = new ArrayList<>();
      int n = random.nextInt(60);
      for (int i = 0; i < n; i++) {
        records.add(
            record(
                random.nextBoolean() ? TokenAction.ACTIVATION : TokenAction.PASSWORD_RECOVERY, i));
      }
      List<SenderProtocol.Parsed> parsed = new ArrayList<>();
      for (String line : OutputLines.of(records)) {
        parsed.addAll(SenderProtocol.check(line));
      }
      assertThat(parsed)
          .extracting(SenderProtocol.Parsed::login)
          .containsExactlyElementsOf(records.stream().map(OutputRecord::login).toList());
    }
  }

  @Test
  void long_records_split_a_line_so_that_none_exceeds_pipe_buf() {
    // Fields at the sender's 254-byte limit: ten activations and ten recoveries would make one
    // line of about 12 KB, which no pipe write of the original format can carry atomically.
    List<OutputRecord> records = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      String login = String.format("%03d", i) + "l".repeat(251);
      records.add(
          new OutputRecord(
              i % 2 == 0 ? TokenAction.ACTIVATION : TokenAction.PASSWORD_RECOVERY,
              login.substring(0, 247) + "@x.test",
              login,
              "t".repeat(86),
              "12345"));
    }
    List<String> lines = OutputLines.of(records);
    assertThat(lines)
        .allSatisfy(
            line ->
                assertThat(line.getBytes(StandardCharsets.UTF_8).length + 1)
                    .isLessThanOrEqualTo(OutputLines.PIPE_BUF));
    assertThat(lines).hasSizeGreaterThan(1);
    List<SenderProtocol.Parsed> parsed = new ArrayList<>();
    lines.forEach(line -> parsed.addAll(SenderProtocol.check(line)));
    assertThat(parsed)
        .extracting(SenderProtocol.Parsed::login)
        .containsExactlyElementsOf(records.stream().map(OutputRecord::login).toList());
  }

  @Test
  void each_line_reaches_the_stream_in_one_write_of_its_own() {
    List<byte[]> writes = new ArrayList<>();
    OutputStream recorder =
        new OutputStream() {
          @Override
          public void write(int b) {
            writes.add(new byte[] {(byte) b});
          }

          @Override
          public void write(byte[] b, int off, int len) {
            writes.add(java.util.Arrays.copyOfRange(b, off, off + len));
          }
        };
    new TokenOutput(recorder).write(List.of("1,a@x,a,t,12345", "2,b@x,b,t,54321"));
    assertThat(writes)
        .extracting(w -> new String(w, StandardCharsets.UTF_8))
        .containsExactly("1,a@x,a,t,12345\n", "2,b@x,b,t,54321\n");
  }

  @Test
  void unprintable_fields_are_detected() {
    assertThat(OutputRecord.problem("a,b@x", "a", "12345")).isPresent();
    assertThat(OutputRecord.problem("a@x", "a\nb", "12345")).isPresent();
    assertThat(OutputRecord.problem("a@x", "a", null)).isPresent();
    assertThat(OutputRecord.problem("a@x", "", "12345")).isPresent();
    assertThat(OutputRecord.problem("é".repeat(128) + "@x", "a", "12345")).isPresent();
    assertThat(OutputRecord.problem("a@x", "a", "12345")).isEmpty();
  }
}
