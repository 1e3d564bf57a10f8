package dev.pginbox.inbox.http.server;

import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The connections that have not sent a complete request yet, oldest first, in all and per client
 * address: the ones to close first when a limit is reached. Used by the reactor thread only.
 */
final class WaitingConnections {

  private final LinkedHashSet<Connection> all = new LinkedHashSet<>();
  private final Map<InetAddress, ArrayDeque<Connection>> byAddress = new HashMap<>();

  void add(Connection c) {
    all.add(c);
    byAddress.computeIfAbsent(c.address(), a -> new ArrayDeque<>()).addLast(c);
  }

  void remove(Connection c) {
    if (all.remove(c)) {
      ArrayDeque<Connection> of = byAddress.get(c.address());
      of.remove(c);
      if (of.isEmpty()) {
        byAddress.remove(c.address());
      }
    }
  }

  int size() {
    return all.size();
  }

  int count(InetAddress address) {
    ArrayDeque<Connection> of = byAddress.get(address);
    return of == null ? 0 : of.size();
  }

  /** The connection that has waited longest, or null. */
  Connection oldest() {
    return all.isEmpty() ? null : all.iterator().next();
  }

  /** The connection of {@code address} that has waited longest, or null. */
  Connection oldest(InetAddress address) {
    ArrayDeque<Connection> of = byAddress.get(address);
    return of == null ? null : of.peekFirst();
  }

  /** A copy, so that connections can be removed while going through it. */
  List<Connection> snapshot() {
    return new ArrayList<>(all);
  }
}
