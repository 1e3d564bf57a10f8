package dev.pginbox.inbox.chaos;

import java.time.Duration;
import java.util.List;

/**
 * What one run does: how many messages over how many aggregates, how many worker processes, how
 * often a batch is sent twice (deliberate duplicates), which faults in turn and how far apart.
 */
public record ChaosPlan(
    int messages,
    int aggregates,
    int batchSize,
    int messagesPerSecond,
    int duplicateEvery,
    int workers,
    List<Fault> faults,
    Duration faultInterval,
    Duration drainTimeout) {

  /** One fault; the run applies them in the plan's order, one per interval. */
  public enum Fault {
    /** SIGKILL of a worker process, a new one started in its place. */
    KILL_WORKER,
    /** {@code pg_terminate_backend} of every worker connection (application_name inbox:*). */
    TERMINATE_BACKENDS,
    /** {@code pg_ctl restart -m fast}. */
    RESTART_FAST,
    /** {@code pg_ctl stop -m immediate} (a crash: recovery from WAL), then start. */
    RESTART_IMMEDIATE
  }

  public ChaosPlan {
    if (messages < 1 || aggregates < 1 || batchSize < 1 || messagesPerSecond < 1 || workers < 1) {
      throw new IllegalArgumentException("counts must be positive");
    }
    if (duplicateEvery < 0) {
      throw new IllegalArgumentException("duplicateEvery must be >= 0 (0 = no duplicates)");
    }
    faults = List.copyOf(faults);
  }

  /**
   * The CI run: about a minute, every kind of fault at least once while messages flow (3 workers,
   * 6,000 messages over 30 aggregates in batches of 40, so one batch holds several versions of an
   * aggregate; 11 faults 3 s apart).
   */
  public static ChaosPlan reduced() {
    return new ChaosPlan(
        6_000,
        30,
        40,
        150,
        7,
        3,
        List.of(
            Fault.KILL_WORKER,
            Fault.TERMINATE_BACKENDS,
            Fault.KILL_WORKER,
            Fault.RESTART_FAST,
            Fault.TERMINATE_BACKENDS,
            Fault.KILL_WORKER,
            Fault.RESTART_IMMEDIATE,
            Fault.KILL_WORKER,
            Fault.TERMINATE_BACKENDS,
            Fault.RESTART_IMMEDIATE,
            Fault.KILL_WORKER),
        Duration.ofSeconds(3),
        Duration.ofMinutes(2));
  }

  /** The release run: 100,000 messages, 4 workers, a fault every 3 s while they flow. */
  public static ChaosPlan release() {
    List<Fault> cycle =
        List.of(
            Fault.KILL_WORKER,
            Fault.TERMINATE_BACKENDS,
            Fault.KILL_WORKER,
            Fault.RESTART_FAST,
            Fault.KILL_WORKER,
            Fault.TERMINATE_BACKENDS,
            Fault.KILL_WORKER,
            Fault.RESTART_IMMEDIATE);
    List<Fault> faults = new java.util.ArrayList<>();
    for (int i = 0; i < 8; i++) {
      faults.addAll(cycle);
    }
    return new ChaosPlan(
        100_000, 300, 500, 500, 5, 4, faults, Duration.ofSeconds(3), Duration.ofMinutes(10));
  }
}
