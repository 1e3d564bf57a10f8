package dev.mailroom.delivery;

import dev.mailroom.config.ConfigException;
import dev.mailroom.output.DeliveryOutcome;
import dev.mailroom.output.OutputRecord;
import dev.mailroom.output.RecipientAddress;
import dev.mailroom.output.TokenAction;
import dev.mailroom.output.TokenDelivery;
import dev.mailroom.text.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.sesv2.SesV2Client;
import software.amazon.awssdk.services.sesv2.SesV2ClientBuilder;
import software.amazon.awssdk.services.sesv2.model.BulkEmailContent;
import software.amazon.awssdk.services.sesv2.model.BulkEmailEntry;
import software.amazon.awssdk.services.sesv2.model.BulkEmailEntryResult;
import software.amazon.awssdk.services.sesv2.model.BulkEmailStatus;
import software.amazon.awssdk.services.sesv2.model.Destination;
import software.amazon.awssdk.services.sesv2.model.MessageRejectedException;
import software.amazon.awssdk.services.sesv2.model.ReplacementEmailContent;
import software.amazon.awssdk.services.sesv2.model.ReplacementTemplate;
import software.amazon.awssdk.services.sesv2.model.SendBulkEmailRequest;
import software.amazon.awssdk.services.sesv2.model.SendBulkEmailResponse;
import software.amazon.awssdk.services.sesv2.model.Template;

/**
 * MAILROOM_DELIVERY=ses: Amazon SES v2 {@code SendBulkEmail}, one call per action and at most
 * {@value #MAX_ENTRIES} recipients, with the original sender's templates ({@code activationv1},
 * {@code passwordrecoveryv1}, kept in SES) filled from each token's values. The SDK does not retry
 * by itself: a throttled or failed call leaves its tokens to the inbox's backoff.
 */
public final class SesDelivery implements TokenDelivery {

  /** SES accepts at most 50 destinations per bulk call. */
  static final int MAX_ENTRIES = 50;

  private final SesSettings settings;
  private final MailTemplates templates;
  private final SesV2Client client;

  public SesDelivery(SesSettings settings, MailTemplates templates) {
    this.settings = settings;
    this.templates = templates;
    SesV2ClientBuilder builder =
        SesV2Client.builder()
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            .region(region(settings))
            .overrideConfiguration(
                c ->
                    c.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .apiCallTimeout(Duration.ofSeconds(30)));
    if (settings.endpoint() != null) {
      builder.endpointOverride(settings.endpoint());
    }
    this.client = builder.build();
  }

  /** The SDK's region chain; with an endpoint of its own, a missing region is no obstacle. */
  private static Region region(SesSettings settings) {
    try {
      return new DefaultAwsRegionProviderChain().getRegion();
    } catch (SdkException e) {
      if (settings.endpoint() != null) {
        return Region.US_EAST_1;
      }
      throw new ConfigException(
          "MAILROOM_DELIVERY=ses needs an AWS region (AWS_REGION or a profile): " + e.getMessage());
    }
  }

  @Override
  public List<DeliveryOutcome> deliver(List<OutputRecord> records) {
    DeliveryOutcome[] outcomes = new DeliveryOutcome[records.size()];
    for (int i = 0; i < records.size(); i++) {
      // SES reads "Name" <mailbox> as that mailbox: such an entry is never part of a call.
      Optional<String> notOneAddress = RecipientAddress.problem(records.get(i).email());
      if (notOneAddress.isPresent()) {
        outcomes[i] = DeliveryOutcome.permanent(notOneAddress.get());
      }
    }
    for (TokenAction action : TokenAction.values()) {
      List<Integer> indexes = new ArrayList<>();
      for (int i = 0; i < records.size(); i++) {
        if (records.get(i).action() == action && outcomes[i] == null) {
          indexes.add(i);
        }
      }
      for (int from = 0; from < indexes.size(); from += MAX_ENTRIES) {
        List<Integer> chunk = indexes.subList(from, Math.min(indexes.size(), from + MAX_ENTRIES));
        send(action, chunk, records, outcomes);
      }
    }
    return Arrays.asList(outcomes);
  }

  private void send(
      TokenAction action,
      List<Integer> chunk,
      List<OutputRecord> records,
      DeliveryOutcome[] outcomes) {
    List<BulkEmailEntry> entries = new ArrayList<>(chunk.size());
    for (int i : chunk) {
      OutputRecord record = records.get(i);
      entries.add(
          BulkEmailEntry.builder()
              .destination(Destination.builder().toAddresses(record.email()).build())
              .replacementEmailContent(
                  ReplacementEmailContent.builder()
                      .replacementTemplate(
                          ReplacementTemplate.builder()
                              .replacementTemplateData(templateData(templates.values(record)))
                              .build())
                      .build())
              .build());
    }
    SendBulkEmailRequest request =
        SendBulkEmailRequest.builder()
            .fromEmailAddress(settings.source())
            .configurationSetName(settings.configurationSet())
            .defaultContent(
                BulkEmailContent.builder()
                    .template(
                        Template.builder()
                            .templateName(templateName(action))
                            .templateData("{}")
                            .build())
                    .build())
            .bulkEmailEntries(entries)
            .build();
    try {
      SendBulkEmailResponse response = client.sendBulkEmail(request);
      List<BulkEmailEntryResult> results = response.bulkEmailEntryResults();
      for (int k = 0; k < chunk.size(); k++) {
        outcomes[chunk.get(k)] =
            k < results.size()
                ? outcome(results.get(k))
                : DeliveryOutcome.temporary("SES returned no result for this entry");
      }
    } catch (MessageRejectedException e) {
      fill(chunk, outcomes, DeliveryOutcome.permanent("SES rejected: " + message(e)));
    } catch (SdkException e) {
      // Throttling, quotas, a missing template, the endpoint down: none is the token's fault.
      fill(chunk, outcomes, DeliveryOutcome.temporary("SES: " + message(e)));
    }
  }

  static DeliveryOutcome outcome(BulkEmailEntryResult result) {
    BulkEmailStatus status = result.status();
    String detail =
        "SES " + result.statusAsString() + (result.error() == null ? "" : ": " + result.error());
    if (status == BulkEmailStatus.SUCCESS) {
      return DeliveryOutcome.delivered();
    }
    if (status == BulkEmailStatus.MESSAGE_REJECTED || status == BulkEmailStatus.INVALID_PARAMETER) {
      return DeliveryOutcome.permanent(detail);
    }
    return DeliveryOutcome.temporary(detail);
  }

  static String templateName(TokenAction action) {
    return action == TokenAction.ACTIVATION
        ? SesSettings.ACTIVATION_TEMPLATE
        : SesSettings.RECOVERY_TEMPLATE;
  }

  private static String templateData(Map<String, String> values) {
    JsonObject json = new JsonObject();
    values.forEach(json::add);
    return json.toString();
  }

  private static void fill(List<Integer> chunk, DeliveryOutcome[] outcomes, DeliveryOutcome o) {
    for (int i : chunk) {
      outcomes[i] = o;
    }
  }

  private static String message(Exception e) {
    String m = String.valueOf(e.getMessage()).replaceAll("[\\r\\n]+", " ");
    return m.length() > 500 ? m.substring(0, 500) : m;
  }

  @Override
  public String name() {
    return "ses";
  }

  @Override
  public void close() {
    client.close();
  }
}
