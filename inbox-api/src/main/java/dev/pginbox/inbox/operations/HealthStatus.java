package dev.pginbox.inbox.operations;

/** The overall state reported by {@code inbox.inbox_health}. */
public enum HealthStatus {
  HEALTHY,
  DEGRADED,
  CRITICAL
}
