package dev.mailroom.config;

/** A configuration value that must not be defaulted; the collector prints it and exits with 2. */
public final class ConfigException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public static final int EXIT_CODE = 2;

  public ConfigException(String message) {
    super(message);
  }
}
