package dev.mailroom.output;

import dev.pginbox.inbox.HandlerAbortException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Where lines go: the process's stdout (a raw file descriptor stream, which throws on a broken
 * pipe) or any stream a test hands in. Every write is flushed before the batch commits; a stream
 * that fails means the sender is gone, so the batch must roll back and the collector stop: {@link
 * HandlerAbortException}.
 */
public final class TokenOutput {

  private final OutputStream out;

  public TokenOutput(OutputStream out) {
    this.out = out;
  }

  /**
   * Writes the lines, each ending with {@code \n}, each with one {@code write} of its own (at most
   * {@link OutputLines#PIPE_BUF} bytes, see there: whole lines only, even if the process is killed
   * in between), and flushes. Synchronized: with MAILROOM_CONCURRENCY > 1 two batches must not
   * interleave their lines.
   */
  public synchronized void write(List<String> lines) {
    try {
      for (String line : lines) {
        out.write((line + '\n').getBytes(StandardCharsets.UTF_8));
      }
      out.flush();
    } catch (IOException e) {
      throw new HandlerAbortException("cannot write to stdout: " + e.getMessage(), e);
    }
    // A PrintStream swallows IOExceptions and only remembers them.
    if (out instanceof PrintStream print && print.checkError()) {
      throw new HandlerAbortException("cannot write to stdout (the stream reports an error)", null);
    }
  }
}
