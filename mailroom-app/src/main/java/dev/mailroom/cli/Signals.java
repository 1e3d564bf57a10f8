package dev.mailroom.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * SIGINT / SIGTERM handling. With handlers of our own the JVM does not exit by itself: the
 * collector finishes (or rolls back) its batch and main exits with 0, as the original should have.
 * sun.misc.Signal gives the signal number for the original's {@code signal N received} line. A
 * signal the JVM cannot take over (SIGINT is ignored in a background job, for one) is left alone;
 * if SIGTERM cannot be handled, a shutdown hook asks for the same stop and waits for it.
 */
final class Signals {

  private static final long HOOK_WAIT_SECONDS = 30;

  private Signals() {}

  static void onTermination(IntConsumer stop, CountDownLatch finished) {
    boolean term = handle("TERM", stop);
    handle("INT", stop);
    if (!term) {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    stop.accept(15);
                    try {
                      finished.await(HOOK_WAIT_SECONDS, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  },
                  "mailroom-stop"));
    }
  }

  private static boolean handle(String name, IntConsumer stop) {
    try {
      sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> stop.accept(signal.getNumber()));
      return true;
    } catch (IllegalArgumentException | UnsupportedOperationException | LinkageError e) {
      return false;
    }
  }
}
