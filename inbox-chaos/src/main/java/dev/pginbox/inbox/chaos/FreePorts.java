package dev.pginbox.inbox.chaos;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * A port of a range nobody listens on (127.0.0.1). The search starts at an offset derived from the
 * process id, so that two runs at once rarely race for the same port.
 */
public final class FreePorts {

  private FreePorts() {}

  public static int from(int first, int last) {
    int size = last - first + 1;
    int offset = (int) (ProcessHandle.current().pid() % size);
    for (int i = 0; i < size; i++) {
      int port = first + (offset + i) % size;
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return port;
      } catch (IOException e) {
        // taken
      }
    }
    throw new IllegalStateException("no free port in " + first + ".." + last);
  }
}
