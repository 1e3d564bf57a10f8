package dev.mailroom.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.output.DeliveryOutcome;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sesv2.model.BulkEmailEntryResult;
import software.amazon.awssdk.services.sesv2.model.BulkEmailStatus;

/** How SES's per-recipient statuses become outcomes (no emulator needed). */
class SesOutcomesTest {

  @Test
  void throttling_is_temporary_and_a_rejection_permanent() {
    assertThat(outcome(BulkEmailStatus.SUCCESS).kind()).isEqualTo(DeliveryOutcome.Kind.DELIVERED);
    assertThat(outcome(BulkEmailStatus.ACCOUNT_THROTTLED).kind())
        .isEqualTo(DeliveryOutcome.Kind.TEMPORARY_FAILURE);
    assertThat(outcome(BulkEmailStatus.ACCOUNT_DAILY_QUOTA_EXCEEDED).kind())
        .isEqualTo(DeliveryOutcome.Kind.TEMPORARY_FAILURE);
    assertThat(outcome(BulkEmailStatus.TRANSIENT_FAILURE).kind())
        .isEqualTo(DeliveryOutcome.Kind.TEMPORARY_FAILURE);
    DeliveryOutcome rejected = outcome(BulkEmailStatus.MESSAGE_REJECTED);
    assertThat(rejected.kind()).isEqualTo(DeliveryOutcome.Kind.PERMANENT_FAILURE);
    assertThat(rejected.detail()).isEqualTo("SES MESSAGE_REJECTED: no");
  }

  private static DeliveryOutcome outcome(BulkEmailStatus status) {
    return SesDelivery.outcome(BulkEmailEntryResult.builder().status(status).error("no").build());
  }
}
