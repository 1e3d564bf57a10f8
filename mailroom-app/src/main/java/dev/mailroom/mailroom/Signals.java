package dev.mailroom.mailroom;

import java.util.function.IntConsumer;

/**
 * SIGINT / SIGTERM handling. With handlers of our own the JVM does not exit by itself: the
 * collector finishes (or rolls back) its batch and main exits with 0, as the original should have.
 * sun.misc.Signal gives the signal number for the original's {@code signal N received} line;
 * where it is unavailable a shutdown hook asks for the same stop.
 */
final class Signals {

  private Signals() {}

  static void onTermination(IntConsumer stop) {
    try {
      for (String name : new String[] {"INT", "TERM"}) {
        sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> stop.accept(signal.getNumber()));
      }
    } catch (IllegalArgumentException | UnsupportedOperationException | LinkageError e) {
      Runtime.getRuntime().addShutdownHook(new Thread(() -> stop.accept(15), "mailroom-stop"));
    }
  }
}
