package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.operations.InboxHealth;
import java.util.stream.Stream;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthContributors;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code inbox} health contributor: one indicator per inbox in the database (looked up at each
 * call, so inboxes created later appear), mapped from {@code inbox.inbox_health}:
 *
 * <ul>
 *   <li>{@code healthy} → UP;
 *   <li>{@code degraded} → UP, with {@code "inbox_status": "degraded"} among the details (a backlog
 *       or a dead letter needs a look, but the application still serves);
 *   <li>{@code critical} → DOWN;
 *   <li>the query fails → DOWN with the error.
 * </ul>
 */
final class InboxHealthContributor implements CompositeHealthContributor {

  private final InboxManager manager;

  InboxHealthContributor(InboxManager manager) {
    this.manager = manager;
  }

  @Override
  public HealthContributor getContributor(String name) {
    return manager.exists(name) ? indicator(name) : null;
  }

  @Override
  public Stream<HealthContributors.Entry> stream() {
    return manager.names().stream().map(n -> new HealthContributors.Entry(n, indicator(n)));
  }

  private HealthIndicator indicator(String inbox) {
    return () -> {
      try {
        return health(manager.inbox(inbox).health());
      } catch (RuntimeException e) {
        return Health.down(e).build();
      }
    };
  }

  static Health health(InboxHealth h) {
    Health.Builder builder =
        switch (h.status()) {
          case HEALTHY, DEGRADED -> Health.up();
          case CRITICAL -> Health.down();
        };
    return builder
        .withDetail("inbox_status", h.status().name().toLowerCase(java.util.Locale.ROOT))
        .withDetail("pending_count", h.pendingCount())
        .withDetail("pending_count_exact", h.pendingCountExact())
        .withDetail("dlq_count", h.dlqCount())
        .withDetail("dlq_count_exact", h.dlqCountExact())
        .withDetail("oldest_pending_age_seconds", h.oldestPendingAgeSeconds())
        .withDetail("throughput_per_minute", h.throughputPerMinute())
        .withDetail("status_reasons", h.statusReasons())
        .withDetail("xmin_horizon_held_seconds", h.horizonHeldSeconds())
        .withDetail(
            "xmin_horizon_holder", h.horizonHolder() == null ? "" : h.horizonHolder().summary())
        .build();
  }
}
