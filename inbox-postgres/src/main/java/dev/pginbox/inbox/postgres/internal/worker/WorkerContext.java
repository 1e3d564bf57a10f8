package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.worker.batch.FailureLog;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import org.jdbi.v3.core.Jdbi;

/**
 * One worker's configuration, what it was given, and the services made from them once, shared by
 * every run: the lifecycle classes of this package wire each thread from it, handing the thread
 * only what it uses.
 */
record WorkerContext(
    WorkerConfig config,
    WorkerDependencies given,
    Jdbi jdbi,
    WorkerEvents events,
    FailureLog failures,
    ClaimScope scope) {

  static WorkerContext of(WorkerConfig config, WorkerDependencies given) {
    String inbox = config.inbox();
    return new WorkerContext(
        config,
        given,
        WorkerConnection.jdbi(given.dataSource()),
        new WorkerEvents(given.registry(), inbox, given.listener()),
        new FailureLog(inbox),
        new ClaimScope(config.options().partitions(), inbox, config.workerId()));
  }

  /** The same worker claiming from {@code other}. */
  WorkerContext withScope(ClaimScope other) {
    return new WorkerContext(config, given, jdbi, events, failures, other);
  }

  WorkerOptions options() {
    return config.options();
  }

  String inbox() {
    return config.inbox();
  }
}
