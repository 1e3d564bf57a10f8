package dev.pginbox.inbox.http.server;

import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link BoundedHttpServer} grants one client: how long it may take to send its request head
 * and body, how large they may be, how long its answer may take, and how many connections may wait
 * for a request, in all and from one address.
 *
 * @param headerTimeout from the accept to the end of the request head (answered with 408)
 * @param bodyTimeout from the end of the head to the end of the body (408)
 * @param responseTimeout from the complete request to the last byte of the answer; past it the
 *     connection is closed
 * @param maxHeaderBytes request line and headers together (431)
 * @param maxHeaderCount header lines (431)
 * @param maxBodyBytes the declared {@code Content-Length} (413)
 * @param maxConnections connections open at once; at the cap a new one closes the connection that
 *     has waited longest for its request, or is closed itself when all are being answered
 * @param maxWaitingPerAddress connections of one client address that have not sent a complete
 *     request yet; one more closes that address's oldest
 * @param threads worker threads that run the handlers (requests are read without them)
 */
public record HttpLimits(
    Duration headerTimeout,
    Duration bodyTimeout,
    Duration responseTimeout,
    int maxHeaderBytes,
    int maxHeaderCount,
    int maxBodyBytes,
    int maxConnections,
    int maxWaitingPerAddress,
    int threads) {

  public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(20);
  public static final Duration DEFAULT_RESPONSE_TIMEOUT = Duration.ofSeconds(60);
  public static final int DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
  public static final int DEFAULT_MAX_HEADER_COUNT = 100;
  public static final int DEFAULT_MAX_BODY_BYTES = 256 * 1024;
  public static final int DEFAULT_MAX_CONNECTIONS = 256;
  public static final int DEFAULT_MAX_WAITING_PER_ADDRESS = 16;
  public static final int DEFAULT_THREADS = 4;

  /** Every limit at its default. */
  public static final HttpLimits DEFAULTS = builder().build();

  public HttpLimits {
    positive(headerTimeout, "headerTimeout");
    positive(bodyTimeout, "bodyTimeout");
    positive(responseTimeout, "responseTimeout");
    atLeast(maxHeaderBytes, 256, "maxHeaderBytes");
    atLeast(maxHeaderCount, 1, "maxHeaderCount");
    atLeast(maxBodyBytes, 0, "maxBodyBytes");
    atLeast(maxConnections, 1, "maxConnections");
    atLeast(maxWaitingPerAddress, 1, "maxWaitingPerAddress");
    atLeast(threads, 1, "threads");
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder that starts from these limits. */
  public Builder toBuilder() {
    return new Builder()
        .headerTimeout(headerTimeout)
        .bodyTimeout(bodyTimeout)
        .responseTimeout(responseTimeout)
        .maxHeaderBytes(maxHeaderBytes)
        .maxHeaderCount(maxHeaderCount)
        .maxBodyBytes(maxBodyBytes)
        .maxConnections(maxConnections)
        .maxWaitingPerAddress(maxWaitingPerAddress)
        .threads(threads);
  }

  private static void positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + d);
    }
  }

  private static void atLeast(int value, int min, String name) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", got " + value);
    }
  }

  public static final class Builder {
    private Duration headerTimeout = DEFAULT_HEADER_TIMEOUT;
    private Duration bodyTimeout = DEFAULT_BODY_TIMEOUT;
    private Duration responseTimeout = DEFAULT_RESPONSE_TIMEOUT;
    private int maxHeaderBytes = DEFAULT_MAX_HEADER_BYTES;
    private int maxHeaderCount = DEFAULT_MAX_HEADER_COUNT;
    private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
    private int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private int maxWaitingPerAddress = DEFAULT_MAX_WAITING_PER_ADDRESS;
    private int threads = DEFAULT_THREADS;

    private Builder() {}

    public Builder headerTimeout(Duration value) {
      this.headerTimeout = value;
      return this;
    }

    public Builder bodyTimeout(Duration value) {
      this.bodyTimeout = value;
      return this;
    }

    public Builder responseTimeout(Duration value) {
      this.responseTimeout = value;
      return this;
    }

    public Builder maxHeaderBytes(int value) {
      this.maxHeaderBytes = value;
      return this;
    }

    public Builder maxHeaderCount(int value) {
      this.maxHeaderCount = value;
      return this;
    }

    public Builder maxBodyBytes(int value) {
      this.maxBodyBytes = value;
      return this;
    }

    public Builder maxConnections(int value) {
      this.maxConnections = value;
      return this;
    }

    public Builder maxWaitingPerAddress(int value) {
      this.maxWaitingPerAddress = value;
      return this;
    }

    public Builder threads(int value) {
      this.threads = value;
      return this;
    }

    public HttpLimits build() {
      return new HttpLimits(
          headerTimeout,
          bodyTimeout,
          responseTimeout,
          maxHeaderBytes,
          maxHeaderCount,
          maxBodyBytes,
          maxConnections,
          maxWaitingPerAddress,
          threads);
    }
  }
}
