package dev.pginbox.inbox.spring;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code inboxWorkers} health indicator: DOWN while any worker of this application has lost its
 * database connection (it reconnects by itself, with backoff) or has stopped on a fatal error. Add
 * it to the readiness group ({@code
 * management.endpoint.health.group.readiness.include=readinessState,inboxWorkers}) so that an
 * instance whose workers cannot reach the database is taken out of rotation.
 */
final class InboxWorkersHealthIndicator implements HealthIndicator {

  private final ObjectProvider<InboxWorkerLifecycle> workers;

  InboxWorkersHealthIndicator(ObjectProvider<InboxWorkerLifecycle> workers) {
    this.workers = workers;
  }

  @Override
  public Health health() {
    List<InboxWorkerLifecycle> all = workers.orderedStream().toList();
    boolean up = true;
    Map<String, Object> details = new LinkedHashMap<>();
    for (InboxWorkerLifecycle w : all) {
      String state;
      if (w.worker().failure().isPresent()) {
        state = "failed: " + w.worker().failure().get();
        up = false;
      } else if (!w.isRunning()) {
        state = "stopped";
      } else if (!w.connected()) {
        state = "reconnecting";
        up = false;
      } else {
        state = "connected";
      }
      details.put(w.inbox(), state);
    }
    return (up ? Health.up() : Health.down()).withDetails(details).build();
  }
}
