package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * Finds the application's handlers once every singleton exists: {@link InboxListener} methods, and
 * {@link MessageHandler} / {@link BatchHandler} beans with a {@code @Qualifier("inbox name")}. For
 * each inbox with a handler (and {@code inbox.inboxes.NAME.worker.enabled}) it creates the inbox if
 * missing and registers an {@link InboxWorkerLifecycle} bean, which the context then starts.
 */
final class InboxWorkerRegistrar implements SmartInitializingSingleton {

  private static final Logger LOG = LoggerFactory.getLogger(InboxWorkerRegistrar.class);

  /** What a worker needs from the context. */
  record Collaborators(
      DataSource dataSource,
      DataSource workerConnections,
      PlatformTransactionManager transactions,
      InboxManager manager,
      InboxProperties properties,
      PayloadCodec codec,
      ObservationRegistry observations,
      MeterRegistry meters) {}

  private final ConfigurableListableBeanFactory beanFactory;
  private final Supplier<Collaborators> collaborators;
  private Collaborators c;

  /** The collaborators are looked up only once every singleton exists. */
  InboxWorkerRegistrar(
      ConfigurableListableBeanFactory beanFactory, Supplier<Collaborators> collaborators) {
    this.beanFactory = beanFactory;
    this.collaborators = collaborators;
  }

  /** A handler found in the context, before it becomes a worker. */
  private record Found(String description, MessageHandler message, BatchHandler batch) {}

  @Override
  public void afterSingletonsInstantiated() {
    c = collaborators.get();
    Map<String, Found> handlers = new LinkedHashMap<>();
    for (String name : beanFactory.getBeanDefinitionNames()) {
      Class<?> type = beanFactory.getType(name, false);
      if (type != null) {
        addListenerMethods(name, type, handlers);
      }
    }
    for (String name : beanFactory.getBeanNamesForType(MessageHandler.class, false, false)) {
      String inbox = qualifier(name);
      if (inbox != null) {
        put(
            handlers,
            inbox,
            new Found("bean " + name, beanFactory.getBean(name, MessageHandler.class), null));
      }
    }
    for (String name : beanFactory.getBeanNamesForType(BatchHandler.class, false, false)) {
      String inbox = qualifier(name);
      if (inbox != null) {
        put(
            handlers,
            inbox,
            new Found("bean " + name, null, beanFactory.getBean(name, BatchHandler.class)));
      }
    }
    handlers.forEach(this::register);
  }

  private void addListenerMethods(String beanName, Class<?> type, Map<String, Found> handlers) {
    Class<?> userType = ClassUtils.getUserClass(type);
    Map<Method, InboxListener> methods =
        MethodIntrospector.selectMethods(
            userType,
            (MethodIntrospector.MetadataLookup<InboxListener>)
                m -> AnnotatedElementUtils.findMergedAnnotation(m, InboxListener.class));
    if (methods.isEmpty()) {
      return;
    }
    Object bean = beanFactory.getBean(beanName);
    methods.forEach(
        (method, annotation) -> {
          Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
          ListenerMethod listener = new ListenerMethod(bean, invocable, annotation.inbox());
          Found found =
              listener.batch()
                  ? new Found(listener.describe(), null, ListenerHandlers.batchHandler(listener))
                  : new Found(
                      listener.describe(),
                      ListenerHandlers.messageHandler(listener, c.codec()),
                      null);
          put(handlers, annotation.inbox(), found);
        });
  }

  private String qualifier(String beanName) {
    Qualifier q = beanFactory.findAnnotationOnBean(beanName, Qualifier.class);
    return q == null || q.value().isEmpty() ? null : q.value();
  }

  private static void put(Map<String, Found> handlers, String inbox, Found found) {
    Found before = handlers.putIfAbsent(inbox, found);
    if (before != null) {
      throw new InboxException(
          "inbox '"
              + inbox
              + "' has two handlers ("
              + before.description()
              + " and "
              + found.description()
              + "); an inbox has one worker and one handler",
          inbox);
    }
  }

  private void register(String inbox, Found found) {
    InboxProperties.InboxDefinition definition = c.properties().inbox(inbox);
    if (!definition.worker().enabled()) {
      LOG.info("inbox {}: worker disabled (inbox.inboxes.{}.worker.enabled=false)", inbox, inbox);
      return;
    }
    if (definition.create() && !c.manager().exists(inbox)) {
      c.manager().createInbox(inbox, definition.options());
    }
    WorkerOptions options = definition.worker().options(inbox);
    InboxWorkerLifecycle.ConnectionState connection = new InboxWorkerLifecycle.ConnectionState();
    PostgresInboxWorker.Builder builder =
        PostgresInboxWorker.builder(c.workerConnections(), options)
            .listener(connection)
            .meterRegistry(c.meters());
    String workerId = definition.worker().partitions().workerId();
    if (workerId != null) {
      builder.workerId(workerId);
    }
    if (c.transactions() != null) {
      // Batches in transactions of the application's transaction manager (JDBC or JPA).
      builder.transactionBoundary(new SpringBatchTransactions(c.transactions(), c.dataSource()));
      MessageScope scope = new MessageScope(c.dataSource(), beanFactory);
      if (found.message() != null) {
        builder.handler(
            scope.around(
                ObservedHandlers.observe(found.message(), inbox, c.observations()), inbox));
      } else {
        builder.batchHandler(
            scope.around(ObservedHandlers.observe(found.batch(), inbox, c.observations()), inbox));
      }
    } else {
      // No transaction manager: the worker's own transaction, exposed to Spring's JDBC support.
      ClaimTransactionBinding binding = new ClaimTransactionBinding(c.dataSource());
      if (found.message() != null) {
        builder.handler(
            binding.around(
                ObservedHandlers.observe(found.message(), inbox, c.observations()), inbox));
      } else {
        builder.batchHandler(
            binding.around(
                ObservedHandlers.observe(found.batch(), inbox, c.observations()), inbox));
      }
    }
    InboxWorker worker = builder.build();
    beanFactory.registerSingleton(
        "inboxWorker." + inbox,
        new InboxWorkerLifecycle(
            options, found.description(), worker, connection, c.properties().startWorkers()));
    LOG.info(
        "inbox {}: worker registered for {} ({})",
        inbox,
        found.description(),
        c.transactions() != null
            ? "batches in transactions of " + c.transactions().getClass().getSimpleName()
            : "no transaction manager: the worker's own transactions");
  }
}
