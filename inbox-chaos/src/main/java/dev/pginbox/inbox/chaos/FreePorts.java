package dev.pginbox.inbox.chaos;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** The first port of a range nobody listens on (127.0.0.1). */
public final class FreePorts {

  private FreePorts() {}

  public static int from(int first, int last) {
    for (int port = first; port <= last; port++) {
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return port;
      } catch (IOException e) {
        // taken
      }
    }
    throw new IllegalStateException("no free port in " + first + ".." + last);
  }
}
