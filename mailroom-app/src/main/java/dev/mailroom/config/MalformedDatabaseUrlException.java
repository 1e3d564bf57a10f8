package dev.mailroom.config;

/**
 * Thrown by {@link DatabaseUrl} for a URL that libpq itself would reject; the collector exits with
 * code 2. A class of its own, not nested in {@code DatabaseUrl}, so that the libpq parser can throw
 * it without depending on the class that calls it.
 */
public final class MalformedDatabaseUrlException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public MalformedDatabaseUrlException(String message) {
    super(message);
  }
}
