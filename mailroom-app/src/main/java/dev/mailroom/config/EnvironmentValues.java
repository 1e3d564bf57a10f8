package dev.mailroom.config;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reading single variables of the environment as the original collector did: an empty variable
 * counts as unset, and an unparsable number warns ({@code invalid value for X: V, using default:
 * D}) and falls back to its default. The warnings are collected for the collector to log.
 */
final class EnvironmentValues {

  private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");

  private final Map<String, String> env;
  private final List<String> warnings = new ArrayList<>();

  EnvironmentValues(Map<String, String> env) {
    this.env = env;
  }

  List<String> warnings() {
    return warnings;
  }

  void warn(String warning) {
    warnings.add(warning);
  }

  /** An unset or empty variable counts as unset. */
  String value(String name) {
    String v = env.get(name);
    return v == null || v.isEmpty() ? null : v;
  }

  String orDefault(String name, String defaultValue) {
    String v = value(name);
    return v == null ? defaultValue : v;
  }

  /** strtol-like: invalid text and out-of-int-range values warn and fall back to the default. */
  long integer(String name, long defaultValue) {
    BigInteger v = parsed(name, defaultValue);
    if (v.bitLength() > 31) {
      warnings.add(
          "value for "
              + name
              + " is out of range: "
              + value(name)
              + ", using default: "
              + defaultValue);
      return defaultValue;
    }
    return v.longValue();
  }

  /**
   * Invalid text warns and falls back to the default, as the original did; a number outside {@code
   * min..max}, however large, is an error naming the variable and the range: a value that absurd is
   * a mistake to report, not to replace.
   */
  int integer(String name, int defaultValue, int min, int max) {
    BigInteger v = parsed(name, defaultValue);
    if (v.compareTo(BigInteger.valueOf(min)) < 0 || v.compareTo(BigInteger.valueOf(max)) > 0) {
      throw new ConfigException(name + " must be " + min + " to " + max + ", got: " + value(name));
    }
    return v.intValue();
  }

  /** The variable's integer, or the default (with a warning when the text is not an integer). */
  private BigInteger parsed(String name, long defaultValue) {
    String raw = value(name);
    if (raw == null) {
      return BigInteger.valueOf(defaultValue);
    }
    String s = raw.stripLeading();
    if (!INTEGER.matcher(s).matches()) {
      warnings.add("invalid value for " + name + ": " + raw + ", using default: " + defaultValue);
      return BigInteger.valueOf(defaultValue);
    }
    return new BigInteger(s.startsWith("+") ? s.substring(1) : s);
  }

  static int strictInt(String name, String raw, int min, int max) {
    try {
      int v = Integer.parseInt(raw.strip());
      if (v >= min && v <= max) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new ConfigException(
        name + " must be an integer in " + min + ".." + max + ", got: " + raw);
  }
}
