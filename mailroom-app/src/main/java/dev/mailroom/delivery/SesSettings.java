package dev.mailroom.delivery;

import dev.mailroom.config.ConfigException;
import java.net.URI;
import java.util.Map;
import java.util.Objects;

/**
 * The original sender's SES variables: {@code MAILROOM_SES_SOURCE} (noreply@localhost), {@code
 * MAILROOM_SES_CONFIG_SET} (default), plus {@code MAILROOM_SES_ENDPOINT} to talk to another
 * endpoint (an emulator, a VPC endpoint). Credentials and region come from the AWS SDK's default
 * chains.
 *
 * @param endpoint null for the SDK's regional endpoint
 */
public record SesSettings(String source, String configurationSet, URI endpoint) {

  public static final String DEFAULT_SOURCE = "noreply@localhost";
  public static final String DEFAULT_CONFIG_SET = "default";
  public static final String ACTIVATION_TEMPLATE = "activationv1";
  public static final String RECOVERY_TEMPLATE = "passwordrecoveryv1";

  public SesSettings {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(configurationSet, "configurationSet");
  }

  static SesSettings read(Map<String, String> env) {
    String source = EnvironmentVariables.value(env, "MAILROOM_SES_SOURCE");
    String set = EnvironmentVariables.value(env, "MAILROOM_SES_CONFIG_SET");
    String endpoint = EnvironmentVariables.value(env, "MAILROOM_SES_ENDPOINT");
    URI uri = null;
    if (endpoint != null) {
      try {
        uri = URI.create(endpoint);
        if (uri.getScheme() == null || uri.getHost() == null) {
          throw new IllegalArgumentException("no scheme or host");
        }
      } catch (IllegalArgumentException e) {
        throw new ConfigException("MAILROOM_SES_ENDPOINT must be a URL, got: " + endpoint);
      }
    }
    return new SesSettings(
        source == null ? DEFAULT_SOURCE : source, set == null ? DEFAULT_CONFIG_SET : set, uri);
  }

  @Override
  public String toString() {
    return "ses source="
        + source
        + " configuration-set="
        + configurationSet
        + (endpoint == null ? "" : " endpoint=" + endpoint);
  }
}
