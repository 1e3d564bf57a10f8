package dev.mailroom.delivery;

import dev.mailroom.output.LineDelivery;
import dev.mailroom.output.TokenDelivery;
import dev.mailroom.output.TokenOutput;
import java.io.OutputStream;

/** Builds the {@link TokenDelivery} of the configured mode. */
public final class Deliveries {

  private Deliveries() {}

  public static TokenDelivery create(DeliveryConfig config, OutputStream stdout) {
    return switch (config.mode()) {
      case STDOUT -> new LineDelivery(new TokenOutput(stdout));
      case SMTP -> new SmtpDelivery(config.smtp(), templates(config));
      case SES -> new SesDelivery(config.ses(), templates(config));
    };
  }

  public static MailTemplates templates(DeliveryConfig config) {
    return new MailTemplates(config.linkBaseUrl(), config.templateDir());
  }
}
