package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.postgres.spi.NodeDataSources;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The inbox in a Spring Boot application: an {@link PostgresInboxManager} on the application's
 * {@link DataSource} (installing the SQL API and creating the configured inboxes on start-up), an
 * {@link InboxTemplate} to send, and a worker bean per inbox that has a handler.
 */
@AutoConfiguration(
    after = {
      DataSourceAutoConfiguration.class,
      DataSourceTransactionManagerAutoConfiguration.class
    },
    afterName = {
      "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
      "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
      "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
      "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
    })
@ConditionalOnClass(PostgresInboxManager.class)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(InboxProperties.class)
public class InboxAutoConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(InboxAutoConfiguration.class);

  /** Runs after Flyway or Liquibase (if any), so their migrations come first. */
  @Bean
  @ConditionalOnMissingBean
  @DependsOnDatabaseInitialization
  PostgresInboxManager inboxManager(
      DataSource dataSource, InboxProperties properties, Environment environment) {
    PostgresInboxManager manager = PostgresInboxManager.create(dataSource);
    if (properties.install()) {
      manager.install();
    }
    ConfiguredInboxOptions configured = new ConfiguredInboxOptions(Binder.get(environment));
    for (Map.Entry<String, InboxProperties.InboxDefinition> e : properties.inboxes().entrySet()) {
      if (!manager.exists(e.getKey())) {
        if (e.getValue().create()) {
          manager.createInbox(e.getKey(), e.getValue().options());
          LOG.info("created inbox {} from inbox.inboxes.{}.*", e.getKey(), e.getKey());
        }
      } else {
        configured.apply(manager, e.getKey(), e.getValue());
      }
    }
    return manager;
  }

  @Bean
  @ConditionalOnMissingBean
  PayloadCodec inboxPayloadCodec(ConfigurableListableBeanFactory beanFactory) {
    return PayloadCodecs.fromContext(beanFactory);
  }

  @Bean
  @ConditionalOnMissingBean
  InboxTemplate inboxTemplate(
      DataSource dataSource,
      PostgresInboxManager manager,
      PayloadCodec codec,
      ObjectProvider<ObservationRegistry> observations) {
    return new InboxTemplate(
        dataSource, manager, codec, observations.getIfUnique(() -> ObservationRegistry.NOOP));
  }

  @Bean
  static InboxWorkerRegistrar inboxWorkerRegistrar(
      ConfigurableListableBeanFactory beanFactory,
      ObjectProvider<DataSource> dataSource,
      ObjectProvider<DataSourceProperties> dataSourceProperties,
      ObjectProvider<PlatformTransactionManager> transactions,
      ObjectProvider<PostgresInboxManager> manager,
      ObjectProvider<NodeDataSources> nodeDataSources,
      ObjectProvider<InboxProperties> properties,
      ObjectProvider<PayloadCodec> codec,
      ObjectProvider<ObservationRegistry> observations,
      ObjectProvider<MeterRegistry> meters) {
    return new InboxWorkerRegistrar(
        beanFactory,
        () ->
            new InboxWorkerRegistrar.Collaborators(
                dataSource.getObject(),
                workerConnections(dataSource.getObject(), dataSourceProperties.getIfUnique()),
                transactions.getIfUnique(),
                manager.getObject(),
                nodeDataSources.getIfUnique(),
                properties.getObject(),
                codec.getObject(),
                observations.getIfUnique(() -> ObservationRegistry.NOOP),
                meters.getIfUnique(SimpleMeterRegistry::new)));
  }

  /**
   * Where workers open their connections. A worker keeps its connections for as long as it runs
   * (one per processor, one to count, one to LISTEN, one for maintenance), so taking them from the
   * application's pool would starve it: with Boot's own DataSource they are opened beside the pool,
   * with the same URL and credentials. An application that builds its own DataSource lends the
   * workers that one (size its pool for them: docs/spring-boot.md).
   */
  private static DataSource workerConnections(DataSource app, DataSourceProperties properties) {
    if (properties == null || properties.getUrl() == null) {
      return app;
    }
    return properties.initializeDataSourceBuilder().type(SimpleDriverDataSource.class).build();
  }
}
