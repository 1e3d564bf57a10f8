package dev.pginbox.inbox;

/** The overall state reported by {@code inbox.inbox_health}. */
public enum HealthStatus {
  HEALTHY,
  DEGRADED,
  CRITICAL
}
