package dev.pginbox.inbox.http.server;

import java.io.IOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * Writes an answer to a non-blocking channel before a deadline: a client that stops reading holds
 * the worker until then, not for ever.
 */
final class ChannelOutput extends OutputStream {

  private final SocketChannel channel;
  private final long deadline;
  private Selector writable;

  /**
   * @param deadline System.nanoTime() by which everything must be written
   */
  ChannelOutput(SocketChannel channel, long deadline) {
    this.channel = channel;
    this.deadline = deadline;
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
    while (buffer.hasRemaining()) {
      if (channel.write(buffer) == 0) {
        awaitWritable();
      }
    }
  }

  private void awaitWritable() throws IOException {
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      throw new SocketTimeoutException("the client did not take the answer in time");
    }
    if (writable == null) {
      writable = Selector.open();
      channel.register(writable, SelectionKey.OP_WRITE);
    }
    writable.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
    writable.selectedKeys().clear();
  }

  /** Releases the selector; the channel itself is closed by the exchange. */
  @Override
  public void close() throws IOException {
    if (writable != null) {
      writable.close();
      writable = null;
    }
  }
}
