package dev.mailroom.collector;

import dev.mailroom.output.DeliveryOutcome;
import dev.mailroom.output.OutputRecord;
import dev.mailroom.output.RecipientAddress;
import dev.mailroom.output.TokenAction;
import dev.mailroom.output.TokenDelivery;
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
import java.util.function.IntConsumer;

/**
 * The collector's batch handler: loads the batch's tokens with their accounts (one query), signs
 * the eligible ones and hands them to the {@link TokenDelivery} (stdout lines, SMTP or SES), all
 * inside the batch's transaction, so a message is marked processed only once its email was written
 * or accepted. Each token's delivery outcome becomes its message's outcome: delivered -> processed,
 * temporary failure -> retried with the inbox's backoff, permanent -> dead-lettered. Ineligible
 * tokens (expired, consumed, account in the wrong state) are skipped, not dead-lettered: the
 * original rules say they must not be sent. A token whose account's email is not one bare address
 * ({@link RecipientAddress}) is dead-lettered with the reason, in every delivery mode, and never
 * sent. The send-rate budget counts emails: the permits of skipped and refused messages go back to
 * it once their batch is handled (a provider's temporary or permanent refusal was a request to it,
 * and keeps its permit).
 *
 * <p>A failing stdout throws {@link dev.pginbox.inbox.HandlerAbortException}: the worker rolls the
 * batch back and stops. The one window left is a commit that fails after the flush; those messages
 * are sent again (at least once, never lost).
 */
public final class TokenCollector implements BatchHandler {

  static final String EVENT_PREFIX = "token-";

  private final TokenSigner signer;
  private final TokenDelivery delivery;
  private final CollectorLog log;
  private final Counter sent;
  private final Counter skipped;
  private final Counter retried;
  private final Counter deadLettered;
  private final IntConsumer unsent;

  /**
   * @param unsent takes back the send permits of the skipped messages of each batch (the budget's
   *     {@link SendRateLimiter#release}; a no-op without a budget)
   */
  public TokenCollector(
      TokenSigner signer,
      TokenDelivery delivery,
      CollectorLog log,
      MeterRegistry registry,
      String inbox,
      IntConsumer unsent) {
    this.signer = signer;
    this.unsent = unsent;
    this.delivery = delivery;
    this.log = log;
    this.sent =
        Counter.builder("mailroom.tokens.sent")
            .tag("inbox", inbox)
            .description("tokens delivered (written to stdout or accepted by the provider)")
            .register(registry);
    this.skipped =
        Counter.builder("mailroom.tokens.skipped")
            .tag("inbox", inbox)
            .description("tokens not sent: ineligible or unprintable")
            .register(registry);
    this.retried =
        Counter.builder("mailroom.tokens.retried")
            .tag("inbox", inbox)
            .description("tokens the provider refused for now; retried with the inbox's backoff")
            .register(registry);
    this.deadLettered =
        Counter.builder("mailroom.tokens.rejected")
            .tag("inbox", inbox)
            .description("tokens the provider rejected for good; dead-lettered with its error")
            .register(registry);
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
    List<String> recordEvents = new ArrayList<>();
    for (Map.Entry<String, Long> entry : tokenIds.entrySet()) {
      OutputRecord record = sendable(entry.getKey(), rows.get(entry.getValue()), outcomes);
      if (record != null) {
        records.add(record);
        recordEvents.add(entry.getKey());
      }
    }
    // So far only the messages nothing is sent for (skipped, refused) have an outcome.
    int unsentMessages = outcomes.size();
    if (!records.isEmpty()) {
      List<DeliveryOutcome> delivered = delivery.deliver(records);
      for (int i = 0; i < records.size(); i++) {
        Outcome outcome = outcome(recordEvents.get(i), delivered.get(i));
        // Processed is every message's default outcome; only the others are listed.
        if (outcome.kind() != Outcome.Kind.PROCESSED) {
          outcomes.put(recordEvents.get(i), outcome);
        }
      }
    }
    if (unsentMessages > 0) {
      unsent.accept(unsentMessages);
    }
    return BatchResult.of(outcomes);
  }

  /**
   * The signed record of a token to deliver, or null when nothing is sent for it: then its outcome
   * (skipped when the original rules or the channel exclude it, dead when its address is not one
   * bare address) is put in {@code outcomes}.
   */
  private OutputRecord sendable(String eventId, TokenRow row, Map<String, Outcome> outcomes) {
    Optional<String> problem =
        row == null ? Optional.of("token deleted") : Optional.ofNullable(row.ineligible());
    if (problem.isEmpty()) {
      Optional<String> notOneAddress = RecipientAddress.problem(row.email());
      if (notOneAddress.isPresent()) {
        outcomes.put(eventId, refuse(eventId, notOneAddress.get()));
        return null;
      }
      try {
        return toRecord(row);
      } catch (IllegalArgumentException e) {
        problem = Optional.of(e.getMessage());
      }
    }
    outcomes.put(eventId, skip(eventId, problem.orElse("unprintable")));
    return null;
  }

  private OutputRecord toRecord(TokenRow row) {
    TokenAction action =
        TokenAction.fromDbName(row.action())
            .orElseThrow(() -> new IllegalArgumentException("unknown action " + row.action()));
    String missing =
        empty(row.email())
            ? "email"
            : empty(row.login()) ? "login" : empty(row.code()) ? "code" : null;
    if (missing != null) {
      log.warn("skipping token " + row.id() + "; " + missing + " is empty");
      throw new IllegalArgumentException(missing + " is empty");
    }
    if (row.secret() == null || row.secret().length != TokenSigner.SECRET_LENGTH) {
      log.warn("skipping token " + row.id() + "; invalid secret length");
      throw new IllegalArgumentException("invalid secret length");
    }
    String token = signer.sign(action, row.secret(), row.code());
    OutputRecord record = new OutputRecord(action, row.email(), row.login(), token, row.code());
    Optional<String> unsupported = delivery.unsupported(record);
    if (unsupported.isPresent()) {
      log.warn("skipping token " + row.id() + "; " + unsupported.get());
      throw new IllegalArgumentException(unsupported.get());
    }
    return record;
  }

  /**
   * A temporary failure retries the message with the inbox's backoff (and dead-letters it only
   * after the inbox's max retries); a permanent one dead-letters it now with the provider's error.
   */
  private Outcome outcome(String eventId, DeliveryOutcome delivered) {
    switch (delivered.kind()) {
      case TEMPORARY_FAILURE -> {
        retried.increment();
        log.warn("delivery of " + eventId + " failed for now: " + delivered.detail());
        return Outcome.retry(delivered.detail());
      }
      case PERMANENT_FAILURE -> {
        deadLettered.increment();
        log.warn("delivery of " + eventId + " rejected: " + delivered.detail());
        return Outcome.dead(delivered.detail());
      }
      default -> {
        sent.increment();
        return Outcome.processed();
      }
    }
  }

  /**
   * A token whose account's email is not one bare address: whoever a mail library would read into
   * it (a display name's mailbox, a group's members) is not the account's owner, so nothing is sent
   * in any mode, and the message is a dead letter that says why.
   */
  private Outcome refuse(String eventId, String reason) {
    deadLettered.increment();
    log.warn("not sending " + eventId + ": " + reason);
    return Outcome.dead(reason);
  }

  private Outcome skip(String eventId, String reason) {
    skipped.increment();
    log.debug("skipping " + eventId + ": " + reason);
    return Outcome.skipped(reason);
  }

  private static boolean empty(String value) {
    return value == null || value.isEmpty();
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
