package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.postgres.PostgresInboxManager;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdvice;

/**
 * Actuator for the inbox: the {@code inbox} and {@code inboxWorkers} health contributors and the
 * {@code inbox} endpoint (read-only unless {@code inbox.actuator.write-operations=true}).
 */
@AutoConfiguration(after = InboxAutoConfiguration.class)
@ConditionalOnBean(PostgresInboxManager.class)
public class InboxActuatorAutoConfiguration {

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  @ConditionalOnEnabledHealthIndicator("inbox")
  static class Health {

    @Bean
    @ConditionalOnMissingBean(name = "inboxHealthContributor")
    InboxHealthContributor inboxHealthContributor(PostgresInboxManager manager) {
      return new InboxHealthContributor(manager);
    }

    @Bean
    @ConditionalOnMissingBean(name = "inboxWorkersHealthIndicator")
    InboxWorkersHealthIndicator inboxWorkersHealthIndicator(
        ObjectProvider<InboxWorkerLifecycle> workers) {
      return new InboxWorkersHealthIndicator(workers);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(Endpoint.class)
  @ConditionalOnAvailableEndpoint(InboxEndpoint.class)
  static class Endpoints {

    @Bean
    @ConditionalOnMissingBean(InboxEndpoint.class)
    @ConditionalOnProperty(name = "inbox.actuator.write-operations", havingValue = "true")
    InboxWriteEndpoint inboxWriteEndpoint(
        PostgresInboxManager manager,
        DataSource dataSource,
        PayloadCodec codec,
        ObjectProvider<InboxWorkerLifecycle> workers,
        InboxProperties properties) {
      return new InboxWriteEndpoint(
          manager, dataSource, codec, workers, properties.actuator().maxPageSize());
    }

    @Bean
    @ConditionalOnMissingBean(InboxEndpoint.class)
    InboxEndpoint inboxEndpoint(
        PostgresInboxManager manager,
        DataSource dataSource,
        PayloadCodec codec,
        ObjectProvider<InboxWorkerLifecycle> workers,
        InboxProperties properties) {
      return new InboxEndpoint(
          manager, dataSource, codec, workers, properties.actuator().maxPageSize());
    }

    /** Spring MVC: JSON arrays in the endpoint's write requests (see the advice). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(RequestBodyAdvice.class)
    static class WebMvc {

      @Bean
      @ConditionalOnMissingBean
      InboxEndpointBodyAdvice inboxEndpointBodyAdvice(
          ObjectProvider<PathMappedEndpoints> endpoints, PayloadCodec codec) {
        return new InboxEndpointBodyAdvice(endpoints, codec);
      }
    }
  }
}
