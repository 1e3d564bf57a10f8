package dev.pginbox.inbox.postgres.worker;

import dev.pginbox.inbox.WorkerListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Records what a worker reports, in order. */
final class RecordingListener implements WorkerListener {

  record Dispatched(int count, DispatchReason reason, WakeUpCause lastWakeUp) {}

  final List<WakeUpCause> wakeUps = new CopyOnWriteArrayList<>();
  final List<Dispatched> dispatches = new CopyOnWriteArrayList<>();
  final AtomicInteger connected = new AtomicInteger();
  final AtomicInteger connectionsLost = new AtomicInteger();
  final AtomicInteger committed = new AtomicInteger();
  private volatile WakeUpCause last;

  @Override
  public void onWakeUp(WakeUpCause cause) {
    last = cause;
    wakeUps.add(cause);
  }

  @Override
  public void onDispatch(int count, DispatchReason reason) {
    dispatches.add(new Dispatched(count, reason, last));
  }

  @Override
  public void onBatchCommitted(int count) {
    committed.addAndGet(count);
  }

  @Override
  public void onConnected() {
    connected.incrementAndGet();
  }

  @Override
  public void onConnectionLost(Throwable error, Duration retryIn) {
    connectionsLost.incrementAndGet();
  }

  long wakeUps(WakeUpCause cause) {
    return wakeUps.stream().filter(c -> c == cause).count();
  }
}
