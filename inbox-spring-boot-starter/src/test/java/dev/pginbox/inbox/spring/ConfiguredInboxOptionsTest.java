package dev.pginbox.inbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An inbox that exists before the application starts (an earlier start, a migration script) gets
 * the options its properties set, and only those: defaults never overwrite what is stored.
 */
class ConfiguredInboxOptionsTest {

  private static final TestDatabase DATABASE = TestPostgres.shared().newDatabase("spring_options");

  private static PostgresInboxManager manager;

  @BeforeAll
  static void anInboxMadeBeforeTheApplication() {
    manager = PostgresInboxManager.create(DATABASE.dataSource());
    manager.install();
    manager.createInbox(
        "made_by_flyway",
        InboxOptions.builder()
            .maxRetries(5)
            .backoff(Duration.ofSeconds(2), Duration.ofMinutes(1))
            .build());
  }

  private static ApplicationContextRunner application(String... properties) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataSourceAutoConfiguration.class, InboxAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + DATABASE.jdbcUrl(),
            "spring.datasource.username=" + DATABASE.user(),
            "spring.datasource.password="
                + (DATABASE.password() == null ? "" : DATABASE.password()))
        .withPropertyValues(properties);
  }

  @Test
  void the_properties_set_are_applied_at_start_up_and_the_others_keep_the_stored_values() {
    application(
            "inbox.inboxes.made_by_flyway.max-retries=7",
            "inbox.inboxes.made_by_flyway.worker.batch-size=10")
        .run(context -> assertThat(context).hasNotFailed());
    InboxOptions now = manager.options("made_by_flyway");
    assertThat(now.maxRetries()).isEqualTo(7);
    assertThat(now.backoffBase()).isEqualTo(Duration.ofSeconds(2));
    assertThat(now.backoffMax()).isEqualTo(Duration.ofMinutes(1));

    // Without option properties, nothing changes.
    application("inbox.inboxes.made_by_flyway.worker.batch-size=10")
        .run(context -> assertThat(context).hasNotFailed());
    assertThat(manager.options("made_by_flyway").maxRetries()).isEqualTo(7);
  }

  @Test
  void another_channel_stops_the_start_up_naming_the_property_and_the_stored_channel() {
    application("inbox.inboxes.made_by_flyway.channel=elsewhere")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("inbox.inboxes.made_by_flyway.channel is elsewhere")
                    .hasMessageContaining("inbox_made_by_flyway"));
  }
}
