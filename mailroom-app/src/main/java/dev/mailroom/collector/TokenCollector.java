package dev.mailroom.collector;

import dev.mailroom.output.OutputLines;
import dev.mailroom.output.OutputRecord;
import dev.mailroom.output.TokenAction;
import dev.mailroom.output.TokenOutput;
import dev.mailroom.output.TokenSigner;
import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxTransaction;
import dev.pginbox.inbox.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The collector's batch handler: loads the batch's tokens with their accounts (one query), signs
 * the eligible ones, writes them to stdout in the original line format and flushes, all inside the
 * batch's transaction, so the messages are marked processed only if the lines were written.
 * Ineligible tokens (expired, consumed, account in the wrong state) are skipped, not dead-lettered:
 * the original rules say they must not be sent.
 *
 * <p>A failing stdout throws {@link dev.pginbox.inbox.HandlerAbortException}: the worker rolls the
 * batch back and stops. The one window left is a commit that fails after the flush; those messages
 * are sent again (at least once, never lost).
 */
public final class TokenCollector implements BatchHandler {

  static final String EVENT_PREFIX = "token-";

  private final TokenSigner signer;
  private final TokenOutput output;
  private final CollectorLog log;
  private final SendRateLimiter rateLimiter;
  private final Counter sent;
  private final Counter skipped;
  private final Counter lines;

  /**
   * @param rateLimiter the send budget to charge, or null for none
   */
  public TokenCollector(
      TokenSigner signer,
      TokenOutput output,
      CollectorLog log,
      SendRateLimiter rateLimiter,
      MeterRegistry registry,
      String inbox) {
    this.signer = signer;
    this.output = output;
    this.log = log;
    this.rateLimiter = rateLimiter;
    this.sent =
        Counter.builder("mailroom.tokens.sent")
            .tag("inbox", inbox)
            .description("tokens written to stdout")
            .register(registry);
    this.skipped =
        Counter.builder("mailroom.tokens.skipped")
            .tag("inbox", inbox)
            .description("tokens not sent: ineligible or unprintable")
            .register(registry);
    this.lines = Counter.builder("mailroom.lines.written").tag("inbox", inbox).register(registry);
  }

  @Override
  public BatchResult handle(List<InboxMessage> batch, InboxTransaction transaction)
      throws Exception {
    Map<String, Long> tokenIds = new LinkedHashMap<>();
    Map<String, Outcome> outcomes = new HashMap<>();
    for (InboxMessage message : batch) {
      Optional<Long> id = tokenId(message.eventId());
      if (id.isPresent()) {
        tokenIds.put(message.eventId(), id.get());
      } else {
        outcomes.put(message.eventId(), skip(message.eventId(), "not a token event"));
      }
    }
    Map<Long, TokenRow> rows =
        BatchTokens.load(transaction.unwrap(Connection.class), tokenIds.values());

    List<OutputRecord> records = new ArrayList<>();
    for (Map.Entry<String, Long> entry : tokenIds.entrySet()) {
      String eventId = entry.getKey();
      TokenRow row = rows.get(entry.getValue());
      Optional<String> problem =
          row == null ? Optional.of("token deleted") : Optional.ofNullable(row.ineligible());
      OutputRecord record = null;
      if (problem.isEmpty()) {
        try {
          record = toRecord(row);
        } catch (IllegalArgumentException e) {
          problem = Optional.of(e.getMessage());
        }
      }
      if (record == null) {
        outcomes.put(eventId, skip(eventId, problem.orElse("unprintable")));
      } else {
        records.add(record);
      }
    }

    List<String> out = OutputLines.of(records);
    output.write(out);
    sent.increment(records.size());
    lines.increment(out.size());
    if (rateLimiter != null && !records.isEmpty()) {
      rateLimiter.consume(records.size());
    }
    return BatchResult.of(outcomes);
  }

  private OutputRecord toRecord(TokenRow row) {
    TokenAction action =
        TokenAction.fromDbName(row.action())
            .orElseThrow(() -> new IllegalArgumentException("unknown action " + row.action()));
    Optional<String> unprintable = OutputRecord.problem(row.email(), row.login(), row.code());
    if (unprintable.isPresent()) {
      log.warn("skipping token " + row.id() + "; " + unprintable.get());
      throw new IllegalArgumentException(unprintable.get());
    }
    if (row.secret() == null || row.secret().length != TokenSigner.SECRET_LENGTH) {
      log.warn("skipping token " + row.id() + "; invalid secret length");
      throw new IllegalArgumentException("invalid secret length");
    }
    String token = signer.sign(action, row.secret(), row.code());
    return new OutputRecord(action, row.email(), row.login(), token, row.code());
  }

  private Outcome skip(String eventId, String reason) {
    skipped.increment();
    log.debug("skipping " + eventId + ": " + reason);
    return Outcome.skipped(reason);
  }

  /**
   * The token id of {@code token-<id>}, or of {@code token-<id>.<suffix>}: the event id a token
   * gets when {@code token-<id>} was taken already (a reused id, a forged row).
   */
  static Optional<Long> tokenId(String eventId) {
    if (eventId == null || !eventId.startsWith(EVENT_PREFIX)) {
      return Optional.empty();
    }
    int end = eventId.indexOf('.', EVENT_PREFIX.length());
    try {
      return Optional.of(
          Long.parseLong(
              eventId.substring(EVENT_PREFIX.length(), end < 0 ? eventId.length() : end)));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
