package dev.pginbox.inbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerOptions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * The {@code @DefaultValue} literals of {@link InboxProperties} are the library's defaults. They
 * stay literals because Spring takes only constant strings there (the {@code Duration} defaults of
 * {@link InboxOptions} and {@link WorkerOptions} are not) and its metadata processor shows them in
 * IDEs; this test pins every one of them to {@link InboxOptions} and {@link WorkerOptions}, so a
 * changed library default fails here instead of drifting.
 */
class InboxPropertiesDefaultsTest {

  /** An inbox named in the properties with nothing else set: every value is a default. */
  private static InboxProperties.InboxDefinition boundWithNothingSet() {
    Binder binder =
        new Binder(
            new MapConfigurationPropertySource(Map.of("inbox.inboxes.orders.create", "true")));
    return binder.bind("inbox", InboxProperties.class).get().inbox("orders");
  }

  @Test
  void an_inbox_without_properties_gets_the_inbox_options_defaults() {
    assertThat(boundWithNothingSet().options()).isEqualTo(InboxOptions.defaults());
  }

  @Test
  void a_worker_without_properties_gets_the_worker_options_defaults() {
    assertThat(boundWithNothingSet().worker().options("orders"))
        .isEqualTo(WorkerOptions.builder("orders").build());
  }

  @Test
  void automatic_partitions_without_properties_get_the_library_defaults() {
    Binder binder =
        new Binder(
            new MapConfigurationPropertySource(
                Map.of("inbox.inboxes.orders.worker.partitions.mode", "automatic")));
    assertThat(
            binder
                .bind("inbox", InboxProperties.class)
                .get()
                .inbox("orders")
                .worker()
                .partitions()
                .assignment())
        .isEqualTo(
            new PartitionAssignment.Automatic(
                PartitionAssignment.Automatic.DEFAULT_PARTITIONS,
                PartitionAssignment.Automatic.DEFAULT_LEASE));
  }

  @Test
  void bound_defaults_are_those_of_an_inbox_that_has_only_a_listener() {
    // Two paths to the defaults: the literals (an inbox with some properties) and
    // InboxDefinition.defaults(), derived from the options (an inbox with a listener only).
    assertThat(boundWithNothingSet()).isEqualTo(InboxProperties.InboxDefinition.defaults());
  }
}
