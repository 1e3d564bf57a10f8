package dev.mailroom.delivery;

import dev.mailroom.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Reads the delivery settings from the environment: a blank variable counts as unset, and a secret
 * may come from a file instead. Apart from {@link DeliveryConfig} so that the settings of each mode
 * read their variables without depending on the configuration that holds them.
 */
final class EnvironmentVariables {

  private EnvironmentVariables() {}

  static String value(Map<String, String> env, String name) {
    String v = env.get(name);
    return v == null || v.isBlank() ? null : v.strip();
  }

  /** A secret from {@code NAME} or the file named by {@code NAME_FILE}; never both. */
  static String secret(Map<String, String> env, String name) {
    String inline = env.get(name);
    String file = value(env, name + "_FILE");
    if (inline != null && file != null) {
      throw new ConfigException("set only one of " + name + " and " + name + "_FILE");
    }
    if (file == null) {
      return inline;
    }
    try {
      if (Files.size(Path.of(file)) > 4096) {
        throw new ConfigException(name + "_FILE " + file + " is larger than 4096 bytes");
      }
      return Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
    } catch (IOException | RuntimeException e) {
      if (e instanceof ConfigException c) {
        throw c;
      }
      throw new ConfigException("cannot read " + name + "_FILE " + file + ": " + e.getMessage());
    }
  }
}
