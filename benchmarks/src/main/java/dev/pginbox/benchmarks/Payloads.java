package dev.pginbox.benchmarks;

import dev.pginbox.inbox.NewMessage;
import java.util.ArrayList;
import java.util.List;

/** Messages of about 100 bytes of JSON, as in the reference measurements. */
final class Payloads {

  static final String PAYLOAD =
      "{\"order\":\"ORD-000000\",\"amount\":4999,\"currency\":\"EUR\",\"customer\":\"C-12345\",\"note\":\"abcdefghij\"}";

  private Payloads() {}

  static NewMessage message(String prefix, long n, int aggregates) {
    return new NewMessage(prefix + n, n % 10 == 0 ? "order.cancelled" : "order.placed", "bench",
        "agg-" + (n % aggregates), PAYLOAD, null);
  }

  static List<NewMessage> batch(String prefix, long first, int size, int aggregates) {
    List<NewMessage> batch = new ArrayList<>(size);
    for (long n = first; n < first + size; n++) {
      batch.add(message(prefix, n, aggregates));
    }
    return batch;
  }
}
