package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;

/**
 * Gives an inbox that exists already (made by an earlier start, another version of the application
 * or a migration script) the options its {@code inbox.inboxes.NAME.*} properties set, through the
 * audited {@code inbox.alter_inbox}. Only properties set in the environment count: a default never
 * overwrites what is stored. The channel cannot change: a different one stops the start-up, naming
 * the property and the stored channel.
 */
final class ConfiguredInboxOptions {

  private static final Logger LOG = LoggerFactory.getLogger(ConfiguredInboxOptions.class);

  private final Binder binder;

  ConfiguredInboxOptions(Binder binder) {
    this.binder = binder;
  }

  /** Applies what the environment sets for inbox {@code name}; returns the options changed. */
  List<String> apply(
      PostgresInboxManager manager, String name, InboxProperties.InboxDefinition configured) {
    InboxOptions stored = manager.options(name);
    InboxOptions c = configured.options();
    if (set(name, "channel") && !Objects.equals(c.channel(), stored.channel())) {
      throw new IllegalStateException(
          "inbox.inboxes.%s.channel is %s but inbox %s uses channel %s, which cannot change: remove the property or set it to %s"
              .formatted(name, c.channel(), name, stored.channel(), stored.channel()));
    }
    InboxOptions wanted =
        new InboxOptions(
            set(name, "max-retries") ? c.maxRetries() : stored.maxRetries(),
            set(name, "processed-retention") ? c.processedRetention() : stored.processedRetention(),
            set(name, "dlq-retention") ? c.dlqRetention() : stored.dlqRetention(),
            set(name, "dedup-retention") ? c.dedupRetention() : stored.dedupRetention(),
            stored.channel(),
            set(name, "backoff-base") ? c.backoffBase() : stored.backoffBase(),
            set(name, "backoff-max") ? c.backoffMax() : stored.backoffMax(),
            set(name, "degraded-age") ? c.degradedAgeSeconds() : stored.degradedAgeSeconds(),
            set(name, "critical-age") ? c.criticalAgeSeconds() : stored.criticalAgeSeconds(),
            set(name, "degraded-pending") ? c.degradedPending() : stored.degradedPending(),
            set(name, "critical-pending") ? c.criticalPending() : stored.criticalPending());
    if (wanted.equals(stored)) {
      return List.of();
    }
    try {
      List<String> changed = manager.alterInbox(name, wanted);
      LOG.info(
          "inbox {}: applied inbox.inboxes.{}.* to the stored options {}", name, name, changed);
      return changed;
    } catch (InboxException e) {
      throw new IllegalStateException(
          "inbox.inboxes.%s.* set options that inbox %s does not have (%s, stored %s), and changing them failed: %s"
              .formatted(name, name, wanted, stored, e.getMessage()),
          e);
    }
  }

  /**
   * Whether the environment sets the property. An inbox name's underscores are not valid in a
   * property name; the binder matches them to dashes, as in {@code inbox.inboxes.my_inbox.*}, and
   * the bracket form {@code inbox.inboxes[my_inbox].*} by its key.
   */
  private boolean set(String inbox, String property) {
    return bound("inbox.inboxes." + inbox.replace('_', '-') + "." + property)
        || bound("inbox.inboxes[" + inbox + "]." + property);
  }

  private boolean bound(String name) {
    return binder.bind(name, Bindable.of(String.class)).isBound();
  }
}
