package dev.pginbox.inbox.http.server;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The response body as {@code sendResponseHeaders} announced it: exactly so many bytes, chunks of
 * unknown total length, or nothing at all. Closing it ends the body.
 */
abstract class BodyOutput extends FilterOutputStream {

  private boolean closed;

  BodyOutput(OutputStream out) {
    super(out);
  }

  static BodyOutput fixed(OutputStream out, long length) {
    return new Fixed(out, length);
  }

  static BodyOutput chunked(OutputStream out) {
    return new Chunked(out);
  }

  static BodyOutput none(OutputStream out) {
    return new Fixed(out, 0);
  }

  @Override
  public final void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public final void write(byte[] bytes, int offset, int length) throws IOException {
    if (closed) {
      throw new IOException("the response body is closed");
    }
    if (length > 0) {
      writeBody(bytes, offset, length);
    }
  }

  abstract void writeBody(byte[] bytes, int offset, int length) throws IOException;

  abstract void finish() throws IOException;

  @Override
  public final void close() throws IOException {
    if (!closed) {
      closed = true;
      finish();
      out.flush();
    }
  }

  private static final class Fixed extends BodyOutput {
    private long left;

    Fixed(OutputStream out, long length) {
      super(out);
      this.left = length;
    }

    @Override
    void writeBody(byte[] bytes, int offset, int length) throws IOException {
      if (length > left) {
        throw new IOException("more bytes than the announced Content-Length");
      }
      out.write(bytes, offset, length);
      left -= length;
    }

    @Override
    void finish() throws IOException {
      if (left > 0) {
        throw new IOException(left + " bytes fewer than the announced Content-Length");
      }
    }
  }

  private static final class Chunked extends BodyOutput {
    Chunked(OutputStream out) {
      super(out);
    }

    @Override
    void writeBody(byte[] bytes, int offset, int length) throws IOException {
      out.write((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(bytes, offset, length);
      out.write(CRLF);
    }

    @Override
    void finish() throws IOException {
      out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    private static final byte[] CRLF = {'\r', '\n'};
  }
}
