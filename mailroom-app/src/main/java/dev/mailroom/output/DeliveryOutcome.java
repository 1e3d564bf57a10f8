package dev.mailroom.output;

import java.util.Objects;

/**
 * What happened to one email: delivered (the provider accepted it), a temporary failure (retry
 * later: SMTP 4xx, connection refused, throttling) or a permanent one (SMTP 5xx for that address,
 * message rejected). {@code detail} is the provider's answer, kept for the DLQ and the log.
 */
public record DeliveryOutcome(Kind kind, String detail) {

  public enum Kind {
    DELIVERED,
    TEMPORARY_FAILURE,
    PERMANENT_FAILURE
  }

  private static final DeliveryOutcome DELIVERED = new DeliveryOutcome(Kind.DELIVERED, null);

  public DeliveryOutcome {
    Objects.requireNonNull(kind, "kind");
    if (kind != Kind.DELIVERED) {
      Objects.requireNonNull(detail, "a failure needs the provider's error");
    }
  }

  public static DeliveryOutcome delivered() {
    return DELIVERED;
  }

  public static DeliveryOutcome temporary(String detail) {
    return new DeliveryOutcome(Kind.TEMPORARY_FAILURE, detail);
  }

  public static DeliveryOutcome permanent(String detail) {
    return new DeliveryOutcome(Kind.PERMANENT_FAILURE, detail);
  }
}
