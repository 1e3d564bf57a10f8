package dev.mailroom.delivery;

import dev.mailroom.config.ConfigException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * How tokens leave the collector, read from the environment: {@code MAILROOM_DELIVERY} and the
 * settings of the chosen mode. Secrets (the SMTP password) are never part of {@link #toString()}.
 *
 * @param smtp the SMTP settings, or null unless the mode is SMTP
 * @param ses the SES settings, or null unless the mode is SES
 * @param templateDir a directory whose templates replace the built-in ones, or null
 */
public record DeliveryConfig(
    Mode mode, SmtpSettings smtp, SesSettings ses, String linkBaseUrl, Path templateDir) {

  public static final String DELIVERY = "MAILROOM_DELIVERY";
  public static final String LINK_BASE_URL = "MAILROOM_LINK_BASE_URL";
  public static final String TEMPLATE_DIR = "MAILROOM_TEMPLATE_DIR";
  public static final String DEFAULT_LINK_BASE_URL = "http://localhost:8080";

  /** The delivery modes. */
  public enum Mode {
    STDOUT,
    SMTP,
    SES
  }

  public DeliveryConfig {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(linkBaseUrl, "linkBaseUrl");
  }

  /** Stdout delivery with the default links: what the collector did before modes existed. */
  public static DeliveryConfig stdout() {
    return new DeliveryConfig(Mode.STDOUT, null, null, DEFAULT_LINK_BASE_URL, null);
  }

  public static DeliveryConfig read(Map<String, String> env) {
    String modeName = EnvironmentVariables.value(env, DELIVERY);
    Mode mode;
    try {
      mode = modeName == null ? Mode.STDOUT : Mode.valueOf(modeName.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(DELIVERY + " must be stdout, smtp or ses, got: " + modeName);
    }
    String templateDir = EnvironmentVariables.value(env, TEMPLATE_DIR);
    if (templateDir != null && !Files.isDirectory(Path.of(templateDir))) {
      throw new ConfigException(TEMPLATE_DIR + " is not a directory: " + templateDir);
    }
    return new DeliveryConfig(
        mode,
        mode == Mode.SMTP ? SmtpSettings.read(env) : null,
        mode == Mode.SES ? SesSettings.read(env) : null,
        linkBaseUrl(env),
        templateDir == null ? null : Path.of(templateDir));
  }

  /** The base of the links in emails, without a trailing slash; http or https only. */
  static String linkBaseUrl(Map<String, String> env) {
    String url = EnvironmentVariables.value(env, LINK_BASE_URL);
    if (url == null) {
      return DEFAULT_LINK_BASE_URL;
    }
    try {
      URI uri = new URI(url);
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https"))
          || uri.getHost() == null
          || uri.getQuery() != null
          || uri.getFragment() != null) {
        throw new URISyntaxException(url, "expected http(s)://host[:port][/path]");
      }
    } catch (URISyntaxException e) {
      throw new ConfigException(
          LINK_BASE_URL + " must be an http(s) URL without query or fragment, got: " + url);
    }
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  @Override
  public String toString() {
    return "DeliveryConfig[mode="
        + mode.name().toLowerCase(Locale.ROOT)
        + (smtp == null ? "" : ", " + smtp)
        + (ses == null ? "" : ", " + ses)
        + ", links="
        + linkBaseUrl
        + (templateDir == null ? "" : ", templates=" + templateDir)
        + "]";
  }
}
