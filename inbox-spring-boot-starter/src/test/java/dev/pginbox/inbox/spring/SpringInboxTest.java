package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import org.springframework.boot.micrometer.tracing.test.autoconfigure.AutoConfigureTracing;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The one Spring context the starter's tests share (contexts are slow to start): {@link
 * TestApplication} on a database of its own, serving on a random port. Test classes extend this and
 * add no configuration, so Spring's test context cache hands them all the same context.
 */
@SpringBootTest(
    classes = TestApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.sql.init.mode=always",
      "spring.autoconfigure.exclude="
          + "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
          + "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration,"
          // Spring Security is on the test classpath for SecuredActuatorTest's context alone.
          + "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration,"
          + "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration,"
          + "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration,"
          + "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration,"
          + "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration",
      "management.tracing.sampling.probability=1.0",
      "inbox.inboxes.orders.max-retries=2",
      "inbox.inboxes.orders.backoff-base=0s",
      "inbox.inboxes.orders.backoff-max=0s",
      "inbox.inboxes.orders.worker.poll-interval=200ms",
      "inbox.inboxes.notes.max-retries=1",
      "inbox.inboxes.audit.worker.batch-size=50",
      "inbox.inboxes.audit.worker.max-batch-bytes=2MB",
      "inbox.inboxes.audit.worker.claim-ahead=true",
      "inbox.inboxes.audit.worker.partitions.mode=automatic",
      "inbox.inboxes.audit.worker.partitions.automatic-partitions=4",
      "inbox.inboxes.audit.worker.partitions.worker-id=audit-pod-0",
      "inbox.inboxes.idle.create=true",
      "inbox.actuator.write-operations=true",
      "management.endpoints.web.exposure.include=health,inbox"
    })
@AutoConfigureTracing
abstract class SpringInboxTest {

  private static final TestDatabase DATABASE = TestPostgres.shared().newDatabase("spring_starter");

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", DATABASE::jdbcUrl);
    registry.add("spring.datasource.username", DATABASE::user);
    registry.add(
        "spring.datasource.password", () -> DATABASE.password() == null ? "" : DATABASE.password());
  }
}
