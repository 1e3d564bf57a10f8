package dev.pginbox.benchmarks;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.ListenerNotFoundException;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The garbage collections of this JVM while it is open, each as a wall-clock interval, so that a
 * latency outlier can be matched against the collections that ran at the same time: evidence for or
 * against "the tail is GC".
 */
final class GcPauses implements AutoCloseable {

  /** One collection: [startMillis, endMillis] in epoch milliseconds. */
  record Pause(long startMillis, long endMillis) {
    long millis() {
      return endMillis - startMillis;
    }
  }

  private final long jvmStartMillis = ManagementFactory.getRuntimeMXBean().getStartTime();
  private final List<Pause> pauses = new ArrayList<>();
  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private final NotificationListener listener = (notification, handback) -> {
    if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
      var info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData()).getGcInfo();
      synchronized (pauses) {
        pauses.add(new Pause(jvmStartMillis + info.getStartTime(), jvmStartMillis + info.getEndTime()));
      }
    }
  };

  GcPauses() {
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(listener, null, null);
        emitters.add(emitter);
      }
    }
  }

  List<Pause> pauses() {
    synchronized (pauses) {
      return List.copyOf(pauses);
    }
  }

  /** Whether a collection overlapped [fromMillis, toMillis] (epoch milliseconds). */
  boolean overlaps(long fromMillis, long toMillis) {
    for (Pause p : pauses()) {
      if (p.startMillis() <= toMillis && p.endMillis() >= fromMillis) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    for (NotificationEmitter emitter : emitters) {
      try {
        emitter.removeNotificationListener(listener);
      } catch (ListenerNotFoundException e) {
        // already gone
      }
    }
  }
}
